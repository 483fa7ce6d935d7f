//go:build linux

package server

import "time"

// Shutdown's side of the loop: connections closed a share at a time, so
// that their clients come back (to a successor, in an upgrade) spread over
// Config.DrainSpread rather than all at once.

// closeIdleConns closes connections with no request in progress (for
// Shutdown). A request that arrived but whose event the loop has not
// handled yet is served first (its response says Connection: close):
// closing a socket with unread bytes would reset the connection, and the
// client would lose a request it had every right to send. So is a new
// connection's first request, likely on its way: a connection accepted
// (or done with its TLS handshake) less than freshGrace ago with nothing
// read yet is left for a later call (Shutdown calls again every 10ms), as
// nginx leaves one waiting for its first request; after that it is closed,
// in its handshake or not. A client's request on a
// fresh connection closed under it is not retried (only one on a reused
// connection is), so closing it would fail a request.
func (l *loop) closeIdleConns() {
	now := l.e.now()
	l.closingIdle = true
	if l.drainStep == 0 {
		l.drainStep = drainStep(l.byFD, l.srv.cfg.DrainSpread)
	}
	closed := 0
	for _, c := range l.byFD {
		if c == nil || c.state.Load() != stIdle {
			continue
		}
		if closed >= l.drainStep {
			// At the next steps: their clients reconnect a few at a time.
			// Those winding down already (a GOAWAY sent) go on doing so.
			if !c.lingering {
				c.proto.shutdown(c, false)
			}
			continue
		}
		if c.fresh && now-c.reqStart < int64(freshGrace) {
			continue // a handshake under way, or a first request on its way
		}
		if c.handshaking {
			l.closeConn(c) // its socket is the handshake's: nothing to read here
			closed++
			continue
		}
		if !c.lingering {
			if took, began := c.proto.shutdown(c, true); took {
				if began {
					closed++
				}
				continue // HTTP/2: GOAWAY, then closed once its streams are done
			}
		}
		if !l.isIdle(c) {
			continue
		}
		l.readTurn(c, false, now)
		if l.isIdle(c) {
			l.closeConn(c)
			closed++
		}
	}
	l.closingIdle = false
	if l.h3 != nil {
		l.h3.drain(now) // GOAWAY on each QUIC connection (once), closed when its streams are done
	}
}

// drainStep is how many of the connections in byFD one of Shutdown's
// 10 ms steps closes so that all are closed over spread: all at once for
// a negative spread, at least one a step.
func drainStep(byFD []*conn, spread time.Duration) int {
	open := 0
	for _, c := range byFD {
		if c != nil {
			open++
		}
	}
	steps := int(spread / (10 * time.Millisecond))
	if spread < 0 || steps <= 1 {
		return max(open, 1)
	}
	return max((open+steps-1)/steps, 1)
}

// isIdle reports whether c is open, owned by the loop, and has no request
// or response in progress.
func (l *loop) isIdle(c *conn) bool {
	return c != nil && c.state.Load() == stIdle && len(c.in) == 0 && !c.blocked
}
