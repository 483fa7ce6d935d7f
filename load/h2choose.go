package load

import "strings"

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
// TLSConfig.NextProtos does not say: "h2" alone with Config.HTTP2,
// "http/1.1" otherwise. Offering "h2,http/1.1" (a --proto auto) takes
// what the server picks, through useProtocol.
func (e *engine) alpnOffer() []string {
	if e.cfg.HTTP2 {
		return []string{"h2"}
	}
	return DefaultNextProtos
}

// useProtocol makes c speak alpn, the protocol its transport negotiated:
// "h2" is HTTP/2, "http/1.1" HTTP/1.1, and "" (the server chose none) the
// run's own (HTTP/2 with Config.HTTP2, as with prior knowledge). c keeps
// the session of the other protocol for its next socket, so a connection
// that changes protocol allocates once.
func (l *loop) useProtocol(c *conn, alpn string) {
	want := alpn == "h2" || alpn == "" && l.e.cfg.HTTP2
	if _, isH2 := c.ses.(*h2session); isH2 == want {
		return
	}
	c.ses, c.other = c.other, c.ses
	if c.ses != nil {
		return
	}
	cfg := &l.e.cfg
	if want {
		c.ses = newH2Session(max(cfg.Streams, 1), l.e.sessionScheme())
	} else {
		c.ses = newH1Session(cfg.Pipeline, cfg.DisableKeepAlive)
	}
}
