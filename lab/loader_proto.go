package lab

import (
	"fmt"
)

// gustCannot says why the in-process gust loader cannot run sc: it runs
// every cell now. TLS cells get Insecure (the lab's targets are
// self-signed); HTTP/2 cells run as gust load --http2 -m N, h2c with prior
// knowledge and h2 by ALPN; HTTP/3 cells as gust load --http3 -m N.
func gustCannot(sc Scenario) error {
	return nil
}

// toolCannot says why the external loader name cannot run sc. wrk
// (OpenSSL) resumes TLS sessions on every reconnect, which is what a
// resumed cell wants; full-handshake cells make the server refuse
// resumption instead (ModeTLSNoResume), so wrk runs both. hey and ab
// cannot be made to resume, so resumed cells are refused to them. None of
// the three speaks HTTP/2: h2load does. Capacity scenarios and HTTP/3
// are gust's alone.
func toolCannot(name string, sc Scenario) error {
	switch {
	case sc.WebSocket != nil:
		return fmt.Errorf("%s does not speak WebSocket: use --loader gust for this scenario", name)
	case sc.Capacity != nil:
		return fmt.Errorf("%s cannot search for a capacity (an open model at rates it picks): use --loader gust for this scenario", name)
	case sc.Compress != nil:
		return fmt.Errorf("%s is not told to send Accept-Encoding: compression cells run with --loader gust", name)
	case sc.HTTP3 != nil:
		return fmt.Errorf("%s does not speak HTTP/3: use --loader gust for this scenario", name)
	case sc.HTTP2 != nil:
		return fmt.Errorf("%s does not speak HTTP/2: use --loader h2load for this scenario", name)
	case sc.TLS != nil && sc.TLS.Resume && name != "wrk":
		return fmt.Errorf("%s does not resume TLS sessions: use --loader wrk for resumed-handshake cells", name)
	}
	return nil
}
