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
	if l.drain.began == 0 {
		l.drain.start(l.byFD, now)
	}
	// Counted as they go, not at the end: a handler served here may be
	// moved off the loop, and the loop's new goroutine starts again.
	limit := l.drain.chosen + l.drain.due(now, l.srv.cfg.DrainSpread)
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
		if l.drain.chosen >= limit {
			// At the next steps: their clients reconnect a few at a time.
			// Those winding down already (a GOAWAY sent) go on doing so.
			if !c.lingering {
				c.proto.shutdown(c, false)
			}
			continue
		}
		if c.handshaking {
			l.closeConn(c) // its socket is the handshake's: nothing to read here
			l.drain.chosen++
			continue
		}
		if !c.lingering {
			if took, began := c.proto.shutdown(c, true); took {
				if began {
					l.drain.chosen++
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
			l.drain.chosen++
			continue
		}
		if l.closeIfIdle(c, now) {
			l.drain.chosen++
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

// drainPace paces a loop's share of Shutdown: the connections open when
// its first step came, and how many its steps have chosen since.
type drainPace struct {
	began  int64 // engine time of the first step; 0 before it
	open   int
	chosen int
}

// start begins the pace at now with the connections in byFD.
func (p *drainPace) start(byFD []*conn, now int64) {
	p.began, p.open = max(now, 1), 0
	for _, c := range byFD {
		if c != nil {
			p.open++
		}
	}
}

// due is how many connections the step at now may choose so that all
// are chosen evenly over spread, this step's 10 ms included: by the time
// gone, not by the count of steps, which a busy CPU delays. At least one
// a step; all at once for a negative spread, or one shorter than a step.
func (p *drainPace) due(now int64, spread time.Duration) int {
	const step = int64(10 * time.Millisecond)
	gone := now - p.began + step
	if spread <= 0 || gone >= int64(spread) {
		return max(p.open-p.chosen, 1)
	}
	want := int((int64(p.open)*gone + int64(spread) - 1) / int64(spread)) // rounded up
	return max(want-p.chosen, 1)
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
