package lab

import (
	"errors"
	"fmt"
	"strings"
)

// gustCannot says why the in-process gust loader cannot run sc yet: h2
// cells need HTTP/2 chosen by TLS's ALPN, which gust load gets with TLS
// (issue 11); h2c cells run (load.Config.HTTP2 with the scenario's
// streams). TLS URLs are passed through to load.Run (see gustTLSError).
func gustCannot(sc Scenario) error {
	if sc.Mode() == ModeH2 {
		return errors.New("the gust loader cannot run h2 (TLS) cells until gust load speaks https with ALPN (issue 11): use --loader h2load, or an h2c cell")
	}
	return nil
}

// gustTLSError turns load.Run's refusal of an https URL into one plain
// line; other errors pass unchanged.
func gustTLSError(sc Scenario, err error) error {
	if sc.TLS != nil && strings.Contains(err.Error(), "https") && strings.Contains(err.Error(), "not supported") {
		return fmt.Errorf("the gust loader cannot run TLS cells until gust load speaks https (issue 11): use --loader wrk (%v)", err)
	}
	return err
}

// toolCannot says why the external loader name cannot run sc. wrk
// (OpenSSL) resumes TLS sessions on every reconnect, which is what a
// resumed cell wants; full-handshake cells make the server refuse
// resumption instead (ModeTLSNoResume), so wrk runs both. hey and ab
// cannot be made to resume, so resumed cells are refused to them. None of
// the three speaks HTTP/2: h2load does.
func toolCannot(name string, sc Scenario) error {
	switch {
	case sc.HTTP2 != nil:
		return fmt.Errorf("%s does not speak HTTP/2: use --loader h2load for this scenario", name)
	case sc.TLS != nil && sc.TLS.Resume && name != "wrk":
		return fmt.Errorf("%s does not resume TLS sessions: use --loader wrk for resumed-handshake cells", name)
	}
	return nil
}
