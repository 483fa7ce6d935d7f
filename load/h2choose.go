package load

import (
	"strings"

	"github.com/gust-http/gust/result"
)

// Choosing HTTP/2 or HTTP/1.1 for a connection. Over http:// the choice
// is the Config's (HTTP2: h2c with prior knowledge). Over TLS the server
// picks from the protocols offered by ALPN, and the TLS transport reports
// its pick through useProtocol once its handshake is done, before ready
// starts the session.

// sessionScheme is the :scheme of the run's HTTP/2 requests.
func (e *engine) sessionScheme() string {
	if strings.HasPrefix(strings.ToLower(e.cfg.URL), "https:") {
		return "https"
	}
	return "http"
}

// alpnOffer is what a TLS handshake offers by ALPN for this run when
// TLSConfig.NextProtos does not say: "h2" alone with Config.HTTP2, "h2"
// then "http/1.1" with Config.AutoProtocol (the server picks, and
// useProtocol follows), "http/1.1" otherwise.
func (e *engine) alpnOffer() []string {
	switch {
	case e.cfg.HTTP2:
		return []string{"h2"}
	case e.cfg.AutoProtocol:
		return []string{"h2", "http/1.1"}
	}
	return DefaultNextProtos
}

// speaksH2 reports whether a connection whose handshake negotiated alpn
// speaks HTTP/2: "h2" does, and "" (the server chose none) does only with
// Config.HTTP2, as with prior knowledge; anything else is HTTP/1.1.
func (e *engine) speaksH2(alpn string) bool {
	return alpn == "h2" || alpn == "" && e.cfg.HTTP2
}

// protocolsSpoken counts the connections that spoke HTTP/2 and HTTP/1.1
// (result.Result.Protocols) from alpn, the run's handshakes by ALPN
// result (result.TLS.ALPN, "none" when the server chose none): every
// successful handshake gave its connection a session through useProtocol,
// so these are the same events counted once more, not sampled.
func (e *engine) protocolsSpoken(alpn map[string]int64) map[string]int64 {
	out := map[string]int64{result.ProtoH2: 0, result.ProtoHTTP11: 0}
	for proto, n := range alpn {
		if proto == "none" {
			proto = ""
		}
		if e.speaksH2(proto) {
			out[result.ProtoH2] += n
		} else {
			out[result.ProtoHTTP11] += n
		}
	}
	return out
}

// useProtocol makes c speak alpn, the protocol its transport negotiated:
// "h2" is HTTP/2, "http/1.1" HTTP/1.1, and "" (the server chose none) the
// run's own (HTTP/2 with Config.HTTP2, as with prior knowledge). c keeps
// the session of the other protocol for its next socket, so a connection
// that changes protocol allocates once.
func (l *loop) useProtocol(c *conn, alpn string) {
	if l.e.target.ws != nil {
		return // a WebSocket session speaks the run's protocol (Config.HTTP2) itself
	}
	want := l.e.speaksH2(alpn)
	if _, isH2 := c.ses.(*h2session); isH2 == want {
		return
	}
	c.ses, c.other = c.other, c.ses
	if c.ses != nil {
		return
	}
	cfg := &l.e.cfg
	if want {
		c.ses = newH2SessionFor(cfg, max(cfg.Streams, 1), l.e.sessionScheme())
	} else {
		c.ses = newH1SessionFor(cfg)
	}
}
