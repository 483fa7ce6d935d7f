//go:build linux

package server

// HTTP/2 over TLS: the TLS files offer "h2" by ALPN when h2OverTLS says
// so, and hand a connection whose handshake chose it to h2OverTLSServe.
func init() {
	h2OverTLS = func(s *Server) bool { return s.cfg.HTTP2.OverTLS }
	h2OverTLSServe = func(l *loop, c *conn, now int64) {
		l.serveH2(c, now)
		// The client's preface and first requests may have come with its
		// last handshake flight: read them now, no event will announce them.
		l.readH2(c, false, now)
	}
}
