package lab

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// TLS makes a scenario run over TLS. With keep-alive each connection does
// one handshake; with a new connection per request (keepalive: false)
// every request pays one, full or resumed.
type TLS struct {
	// Resume, for a new connection per request, lets the client resume
	// sessions (tickets); false makes the server refuse resumption, so
	// every handshake is full whatever the loader does (wrk always resumes).
	Resume bool `json:"resume,omitempty"`
}

// HTTP2 makes a scenario speak HTTP/2: h2 by ALPN with "tls", h2c with
// prior knowledge without.
type HTTP2 struct {
	// Streams is the number of concurrent streams per connection (h2load's
	// -m); 0 means 1.
	Streams int `json:"streams,omitempty"`
}

// The modes a server may be asked to serve, as Scenario.Mode names them
// and the {mode} placeholder of a --server command receives them.
const (
	ModeHTTP1       = "http1"         // plain HTTP/1.1
	ModeTLS         = "tls"           // HTTP/1.1 over TLS, resumption allowed
	ModeTLSNoResume = "tls-no-resume" // HTTP/1.1 over TLS, resumption refused
	ModeH2          = "h2"            // HTTP/2 over TLS (ALPN h2)
	ModeH2C         = "h2c"           // HTTP/2 with prior knowledge
)

// Mode says what a server must serve for s: ModeHTTP1, ModeTLS,
// ModeTLSNoResume, ModeH2, ModeH2C, ModeH3, ModeWS or ModeFiles.
func (s Scenario) Mode() string {
	switch {
	case s.HTTP3 != nil:
		return ModeH3
	case s.WebSocket != nil:
		return ModeWS
	case s.File != nil:
		return ModeFiles
	case s.HTTP2 != nil && s.TLS != nil:
		return ModeH2
	case s.HTTP2 != nil:
		return ModeH2C
	case s.TLS != nil && !s.KeepAliveOn() && !s.TLS.Resume:
		return ModeTLSNoResume
	case s.TLS != nil:
		return ModeTLS
	}
	return ModeHTTP1
}

// Streams returns the HTTP/2 or HTTP/3 streams per connection, at least
// 1; 0 for an HTTP/1.1 scenario.
func (s Scenario) Streams() int {
	switch {
	case s.HTTP2 != nil:
		return max(s.HTTP2.Streams, 1)
	case s.HTTP3 != nil:
		return max(s.HTTP3.Streams, 1)
	}
	return 0
}

// Scheme is the URL scheme a loader uses for s: https with TLS, and
// always for HTTP/3.
func (s Scenario) Scheme() string {
	if s.TLS != nil || s.HTTP3 != nil {
		return "https"
	}
	return "http"
}

// protoGroup is what Group says of the scenario's protocol, "" for plain
// HTTP/1.1.
func (s Scenario) protoGroup() string {
	streams := fmt.Sprintf("%d streams per connection", s.Streams())
	if s.Streams() == 1 {
		streams = "1 stream per connection"
	}
	switch s.Mode() {
	case ModeH2:
		return "HTTP/2 over TLS, " + streams
	case ModeH2C:
		return "HTTP/2 (h2c), " + streams
	case ModeH3:
		return "HTTP/3 over QUIC, " + streams
	case ModeTLSNoResume:
		return "over TLS, full handshakes"
	case ModeTLS:
		if !s.KeepAliveOn() {
			return "over TLS, resumed handshakes"
		}
		return "over TLS"
	}
	return ""
}

// validateProto refuses tls, http2 and http3 fields that make no sense
// together.
func (s Scenario) validateProto() error {
	switch {
	case s.HTTP3 != nil:
		return s.validateHTTP3()
	case s.TLS != nil && s.TLS.Resume && s.KeepAliveOn():
		return fmt.Errorf("scenario %q: tls.resume is for a new connection per request (\"keepalive\": false)", s.Name)
	case s.HTTP2 == nil:
		return nil
	case s.HTTP2.Streams < 0 || s.HTTP2.Streams > 10000:
		return fmt.Errorf("scenario %q: http2.streams must be between 1 and 10000, got %d", s.Name, s.HTTP2.Streams)
	case !s.KeepAliveOn() || s.Pipeline > 1:
		return fmt.Errorf("scenario %q: http2 multiplexes streams on kept-alive connections: drop keepalive and pipeline", s.Name)
	}
	return nil
}

// modeFlags are, per mode, the flags of a peer and of gust serve.
var (
	peerModeFlags = map[string]string{
		ModeTLS:         "-tls-self-signed",
		ModeTLSNoResume: "-tls-self-signed -tls-no-resume",
	}
	// nbio answers /ws and /ws/broadcast beside its HTTP.
	nbioModeFlags = map[string]string{
		ModeTLS:         "-tls-self-signed",
		ModeTLSNoResume: "-tls-self-signed -tls-no-resume",
		ModeWS:          "",
	}
	// The WebSocket peers (gorilla/websocket and coder/websocket on
	// net/http, gobwas/ws) run only WebSocket scenarios.
	wsPeerModeFlags   = map[string]string{ModeWS: ""}
	fasthttpModeFlags = map[string]string{
		ModeTLS:         "-tls-self-signed",
		ModeTLSNoResume: "-tls-self-signed -tls-no-resume",
		ModeFiles:       "-root {root}",
	}
	nethttpModeFlags = map[string]string{
		ModeTLS:         "-tls-self-signed",
		ModeTLSNoResume: "-tls-self-signed -tls-no-resume",
		ModeH2:          "-tls-self-signed -http2",
		ModeH2C:         "-h2c",
		ModeFiles:       "-root {root}",
	}
	gustModeFlags = map[string]string{
		ModeTLS:         "--tls-self-signed",
		ModeTLSNoResume: "--tls-self-signed --tls-no-resume",
		ModeH2:          "--tls-self-signed --http2",
		ModeH2C:         "--http2",
		ModeH3:          "--tls-self-signed --http3",
		ModeWS:          "", // gust serve answers /ws and /ws/broadcast
		ModeFiles:       "--root {root}",
	}
)

// modeCommand returns the server's command line for mode, before its
// placeholders are filled in, or why it cannot serve that mode.
func (s Server) modeCommand(mode string) (string, error) {
	if mode == ModeHTTP1 || mode == "" {
		return s.Command, nil
	}
	if s.Modes != nil {
		flags, ok := s.Modes[mode]
		if !ok {
			return "", fmt.Errorf("%s does not serve %s", s.Name, mode)
		}
		if s.Probe != nil {
			if err := s.Probe(flags); err != nil {
				return "", err
			}
		}
		return s.Command + " " + flags, nil
	}
	if strings.Contains(s.Command, "{mode}") {
		return s.Command, nil
	}
	return "", fmt.Errorf("server %s: this scenario needs %s; put {mode} (http1, tls, tls-no-resume, h2, h2c or h3) in its command", s.Name, mode)
}

// targetFits says why a running target cannot serve mode, if it cannot.
func targetFits(name, url, mode string) error {
	https := strings.HasPrefix(url, "https://")
	switch mode {
	case ModeTLSNoResume:
		return fmt.Errorf("target %s: a full-handshake cell needs a started server (one told to refuse resumption), not a running target", name)
	case ModeFiles:
		return fmt.Errorf("target %s: a file scenario needs a started server (one serving the file the bench writes), not a running target", name)
	case ModeTLS, ModeH2, ModeH3:
		if !https {
			return fmt.Errorf("target %s: this scenario is over TLS; give an https:// URL", name)
		}
	default:
		if https {
			return fmt.Errorf("target %s: this scenario is without TLS; give an http:// URL", name)
		}
	}
	return nil
}

// gustServeHelp caches `gust serve --help` per binary.
var gustServeHelp sync.Map // path -> string

// probeGustServe returns a Probe for the gust binary at path: it says, in
// one line, which flags of a mode its `gust serve --help` does not list.
func probeGustServe(path string) func(flags string) error {
	return func(flags string) error {
		help, ok := gustServeHelp.Load(path)
		if !ok {
			out, err := exec.Command(path, "serve", "--help").CombinedOutput()
			if err != nil {
				return fmt.Errorf("gust serve --help: %v: %s", err, firstLine(string(out)))
			}
			help, _ = gustServeHelp.LoadOrStore(path, string(out))
		}
		for _, f := range strings.Fields(flags) {
			if placeholderField(f) {
				continue
			}
			if !strings.Contains(help.(string), f+" ") && !strings.Contains(help.(string), f+"\n") {
				return fmt.Errorf("this gust serve has no %s flag yet (%s): it cannot serve this cell", f, path)
			}
		}
		return nil
	}
}

// readyClient returns the HTTP client that checks a server of mode is up:
// it trusts any certificate (the servers' are self-signed) and speaks
// HTTP/2 with prior knowledge to an h2c server (nginx's h2c port speaks
// nothing else).
func readyClient(mode string, timeout time.Duration) *http.Client {
	var protos http.Protocols
	switch mode {
	case ModeH2C:
		protos.SetUnencryptedHTTP2(true)
	case ModeH2:
		protos.SetHTTP2(true)
	default:
		protos.SetHTTP1(true)
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		DisableKeepAlives: true,
		Protocols:         &protos,
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
	}}
}
