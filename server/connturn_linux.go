//go:build linux

package server

import (
	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/transport"
)

// The loop's side of a connection, whatever its protocol: reacting to
// readiness, the read turn, and writing what the socket takes now.

// handle reacts to readiness of a connection's socket, on its loop.
func (l *loop) handle(c *conn, flags uint32, now int64) {
	for {
		switch st := c.state.Load(); st {
		case stClosed:
			return
		case stBusy, stBusyEvent:
			if flags&poll.Hangup != 0 {
				c.cancelRequest()
			}
			if c.waiting.Load() {
				select {
				case c.ready <- struct{}{}:
				default:
				}
			}
			if st == stBusyEvent || c.state.CompareAndSwap(stBusy, stBusyEvent) {
				return // the worker reads it before giving the connection back
			}
			continue // the worker gave it back just now: handle it here
		}
		break
	}
	if c.handshaking {
		l.afterHandshake(c, now) // until it ends, the socket is the handshake's
		return
	}
	if c.lingering {
		if flags&(poll.Readable|poll.Hangup) != 0 {
			l.discard(c)
		}
		return
	}
	if c.blocked && flags&poll.Writable != 0 {
		if !c.proto.writable(c, now) {
			return
		}
		if !c.blocked {
			flags |= poll.Readable // input may have waited while the output was stuck
		}
	}
	if flags&(poll.Readable|poll.Hangup) != 0 {
		l.readTurn(c, flags&poll.Hangup != 0, now)
		return
	}
	c.proto.endTurn(c, now)
}

// maxReadsPerTurn bounds the reads one connection gets each time the loop
// turns to it (4 x 64 KiB).
const maxReadsPerTurn = 4

// readTurn reads what c's socket holds, a turn's worth, gives it to c's
// protocol, and lets the protocol finish the turn.
func (l *loop) readTurn(c *conn, hangup bool, now int64) {
	if c.lingering {
		l.discard(c)
		return
	}
	for reads := 0; ; reads++ {
		p := c.proto // serve may switch it: HTTP/1.1 to HTTP/2 or WebSocket
		if !p.reading(c) {
			break // read again once the socket takes output
		}
		if reads == maxReadsPerTurn {
			// A client that sends as fast as the loop reads (a large or
			// endless body) gets a turn, not the loop: the rest is read
			// after the other connections' events.
			l.readLater(c, hangup)
			break
		}
		buf := l.seat.buf // the seat is this goroutine's: see auto_linux.go
		n, err := c.t.Read(buf)
		if n > 0 && c.fresh {
			c.fresh, c.reqStart = false, 0 // reqStart is the first request's from here
		}
		if n > 0 {
			l.srv.counters.bytesIn.Add(int64(n))
			// A short read from the plain transport drained the socket:
			// edge-triggered polling announces what comes next. A layered
			// one (TLS) may hold bytes no event will announce, or have
			// read the socket full: it is read until ErrWouldBlock, unless
			// it says the socket is drained (TLS 1.3 on gust's records).
			drained := n < len(buf) && !hangup && c.shortReadDrains()
			data := buf[:n]
			if len(c.in) > 0 {
				c.in = append(c.in, data...)
				data = c.in
			}
			if !p.serve(c, data, drained, now) {
				return // closed, or handed to a worker
			}
			if drained {
				break
			}
			continue
		}
		if err == transport.ErrWouldBlock {
			break
		}
		l.closeConn(c) // io.EOF, the peer's close, or a failure
		return
	}
	c.proto.endTurn(c, now)
}

// writeOut writes p to c, keeping what the transport does not take in
// c.out, and keeps p's buffer as the seat's output. It returns false if
// the connection was closed.
func (l *loop) writeOut(c *conn, st *seat, p []byte) bool {
	st.out = p[:0]
	if len(p) == 0 {
		return true
	}
	n, err := c.t.Write(p)
	if n > 0 {
		l.srv.counters.bytesOut.Add(int64(n))
	}
	switch err {
	case nil:
		return true
	case transport.ErrWouldBlock:
		if n < len(p) {
			if c.out == nil {
				c.out = getBuf()
			}
			c.out = append(c.out, p[n:]...)
		}
		c.blocked = true
		l.setDeadline(c, l.e.now()+int64(l.srv.cfg.WriteTimeout))
		return true
	}
	l.closeConn(c)
	return false
}

// flushOut writes pending output (c.out, and what the transport holds):
// all of it returns c.out to the pool and clears c.blocked; a part of it
// keeps the rest in c.out and sets c.blocked. False means the connection
// was closed.
func (l *loop) flushOut(c *conn) bool {
	var p []byte // nil: only flush what the transport holds
	if len(c.out) > 0 {
		p = c.out
	}
	n, err := c.t.Write(p)
	if n > 0 {
		l.srv.counters.bytesOut.Add(int64(n))
	}
	switch err {
	case nil:
		if c.keepOut {
			c.out = c.out[:0]
		} else if c.out != nil {
			putBuf(c.out)
			c.out = nil
		}
		c.blocked = false
		return true
	case transport.ErrWouldBlock:
		// Shift once per wake-up, not once per write.
		c.out = c.out[:copy(c.out, c.out[n:])]
		c.blocked = true
		return true
	}
	l.closeConn(c)
	return false
}

// writeQueued writes what a protocol that keeps its connection on the loop
// (HTTP/2, WebSocket) has queued: c.out and what the transport holds. An
// idle connection gives its buffer back. *blockedSince moves to now when
// the output gets stuck, or moves while stuck: WriteTimeout counts from
// the last progress. False means c was closed.
func (l *loop) writeQueued(c *conn, blockedSince *int64, now int64) bool {
	if len(c.out) == 0 && !c.blocked {
		if c.out != nil && !c.keepOut {
			putBuf(c.out)
			c.out = nil
		}
		return true
	}
	was, before := c.blocked, len(c.out)
	if !l.flushOut(c) {
		return false
	}
	if c.blocked && (!was || len(c.out) < before) {
		*blockedSince = now
	}
	return true
}
