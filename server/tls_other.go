//go:build !linux

package server

import "crypto/tls"

// connectionState returns the TLS state of a fallback connection accepted
// by a tls.Listener, for the adapter's Request.TLS; nil for plain TCP.
func (c *fallbackConn) connectionState() *tls.ConnectionState {
	tc, ok := c.Conn.(*tls.Conn)
	if !ok {
		return nil
	}
	st := tc.ConnectionState()
	return &st
}

// offersH2 reports whether s's TLS connections may choose HTTP/2: the
// portable fallback serves HTTP/1.1 only.
func (s *Server) offersH2() bool { return false }
