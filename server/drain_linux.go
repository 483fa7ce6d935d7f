//go:build linux

package server

import "time"

// Shutdown's side of the loop: connections closed a share at a time, so
// that their clients come back (to a successor, in an upgrade) spread over
// Config.DrainSpread rather than all at once. The others serve as before
// until their turn: an HTTP/1.1 response says Connection: close only once
// the spread is over (Server.closeAllAt), or a busy client's connections
// would all end at their next response, together, and over TLS the
// successor would take all their handshakes in the same instant.

// closeIdleConns chooses a share of the connections each call (for
// Shutdown, every 10 ms): an HTTP/1.1 one chosen says Connection: close
// in its next response, and is closed at a later call if it is still idle
// then; one in its TLS handshake is closed; HTTP/2 and WebSocket ones are
// told to go (GOAWAY, 1001). Before closing, a request that arrived but
// whose event the loop has not handled yet is served: closing a socket
// with unread bytes would reset the connection, and the client would lose
// a request it had every right to send. So is a new connection's first
// request, likely on its way: a connection accepted (or done with its TLS
// handshake) less than freshGrace ago with nothing read yet is left for a
// later call, as nginx leaves one waiting for its first request, and its
// answer says Connection: close; after that it is closed, in its
// handshake or not. A client's request on a fresh connection closed under
// it is not retried (only one on a reused connection is), so closing it
// would fail a request.
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
		if c.fresh && now-c.reqStart < int64(freshGrace) {
			// A handshake under way, or a first request on its way: it is
			// answered, with Connection: close.
			c.drainNow = true
			continue
		}
		if _, h1 := c.proto.(h1proto); h1 && c.drainNow && !c.handshaking {
			// Chosen at an earlier step, and no response since (it
			// would have closed it): idle, so closed now.
			l.closeIfIdle(c, now)
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
		if _, h1 := c.proto.(h1proto); h1 {
			// Its next response says Connection: close, and its client
			// closes it cleanly; still idle at the next step, it is
			// closed then. Closed now, it would reset the request a busy
			// client may have on its way, for the client to send again.
			c.drainNow = true
			closed++
			continue
		}
		if l.closeIfIdle(c, now) {
			closed++
		}
	}
	l.closingIdle = false
	if l.h3 != nil {
		l.h3.drain(now) // GOAWAY on each QUIC connection (once), closed when its streams are done
	}
}

// closeIfIdle closes c if it has no request in progress, after serving
// one that arrived but whose event the loop has not handled yet, and
// reports whether it did.
func (l *loop) closeIfIdle(c *conn, now int64) bool {
	if !l.isIdle(c) {
		return false
	}
	l.readTurn(c, false, now)
	if !l.isIdle(c) {
		return false
	}
	l.closeConn(c)
	return true
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

// drainsNow reports whether ctx's connection is one Shutdown closes now
// (conn.drainNow): its response says Connection: close before the drain's
// spread is over.
func drainsNow(ctx *Ctx) bool {
	c, ok := ctx.peer.(*conn)
	return ok && c.drainNow
}
