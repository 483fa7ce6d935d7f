//go:build linux

package server

import (
	"bytes"

	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/transport"
)

// The loop's side of a connection: reacting to readiness, reading, serving
// (Inline, Auto) or handing over (Pooled, Auto), writing what the socket
// takes now.

// handle reacts to readiness of a connection's socket, on its loop.
func (l *loop) handle(c *conn, flags uint32, now int64) {
	for {
		switch st := c.state.Load(); st {
		case stClosed:
			return
		case stBusy, stBusyEvent:
			if flags&poll.Hangup != 0 {
				c.cancelMu.Lock()
				if c.cancel != nil {
					c.cancel()
				}
				c.cancelMu.Unlock()
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
	if c.h2 != nil && !c.lingering {
		l.handleH2(c, flags, now)
		return
	}
	if c.blocked {
		if flags&poll.Writable == 0 || !l.flushOut(c) || c.blocked {
			return
		}
		if c.closing {
			l.closeAfterResponse(c)
			return
		}
		l.setDeadline(c, now+int64(l.srv.cfg.IdleTimeout))
		flags |= poll.Readable // input may have waited while the output was stuck
	}
	if flags&(poll.Readable|poll.Hangup) != 0 {
		l.readAndServe(c, flags&poll.Hangup != 0, now)
	}
}

// flushOut writes pending output (c.out, and what the transport holds);
// false means the connection was closed.
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
		if c.out != nil {
			putBuf(c.out)
			c.out = nil
		}
		c.blocked = false
		return true
	case transport.ErrWouldBlock:
		// Shift once per wake-up, not once per write.
		c.out = c.out[:copy(c.out, c.out[n:])]
		return true
	}
	l.closeConn(c)
	return false
}

// maxReadsPerTurn bounds the reads one connection gets each time the loop
// turns to it (4 x 64 KiB).
const maxReadsPerTurn = 4

// readAndServe drains the socket and serves the requests it holds.
func (l *loop) readAndServe(c *conn, hangup bool, now int64) {
	if c.lingering {
		l.discard(c)
		return
	}
	if c.h2 != nil {
		l.readH2(c, hangup, now)
		return
	}
	for reads := 0; ; reads++ {
		if reads == maxReadsPerTurn {
			// A client that sends as fast as the loop reads (a large or
			// endless body) gets a turn, not the loop: the rest is read
			// after the other connections' events.
			l.readLater(c, hangup)
			return
		}
		buf := l.seat.buf
		n, err := c.t.Read(buf)
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
				// A head still missing its end cannot have been completed by
				// bytes without a line feed: skip parsing it all again.
				if c.headScan > 0 && bytes.IndexByte(data[c.headScan:], '\n') < 0 && len(data) <= l.srv.cfg.MaxHeaderBytes {
					c.headScan = len(data)
					if drained {
						return
					}
					continue
				}
			}
			c.moreToRead = !drained
			if !l.serveInput(c, data, now) {
				return // closed, or handed to a worker
			}
			if c.blocked {
				return // the client is not reading; wait until it does
			}
			if drained {
				return
			}
			continue
		}
		if err == transport.ErrWouldBlock {
			return
		}
		l.closeConn(c) // io.EOF, the peer's close, or a failure
		return
	}
}

// serveInput serves the complete requests at the start of data on the
// loop (Inline and Auto modes) or hands the connection to a worker with
// the request it parsed (Pooled mode, and in Auto mode a request whose
// route waits or whose body is still arriving). It returns false if the
// loop no longer owns an open connection.
func (l *loop) serveInput(c *conn, data []byte, now int64) bool {
	s := l.srv
	if data[0] == 'P' && s.cfg.H2C {
		if took, ok := l.startH2C(c, data, now); took {
			return ok
		}
	}
	// The seat is this goroutine's: if a handler is moved off the loop,
	// the loop goes on in another goroutine with another seat.
	st := l.seat
	out := st.out[:0]
	kept := false // the start of a request waits in c.in for more bytes
	st.site.peer = c
	st.cur = c
	for len(data) > 0 {
		before := len(out)
		kind, rest, o, n := s.step(&st.site, &c.rd, data, out)
		out = o
		switch kind {
		case stepDispatch, stepDispatchBody:
			if !l.writeOut(c, st, out) {
				return false
			}
			l.handOver(c, st, rest, n, kind == stepDispatchBody, now)
			return false
		case stepMoved:
			l.finishMoved(st, c, rest, out) // does not return
		case stepNeedHead, stepNeedBody:
			data = rest
			if len(c.in) == 0 || &data[0] != &c.in[0] {
				c.keep(data)
			} else {
				c.in = c.in[:len(data)]
			}
			kept = true
			// The head must be complete ReadHeaderTimeout after the
			// request's first byte, the body ReadTimeout after it.
			if c.reqStart == 0 {
				c.reqStart = now
			}
			timeout := s.cfg.ReadHeaderTimeout
			c.headScan = len(c.in)
			if kind == stepNeedBody {
				timeout = s.cfg.ReadTimeout
				c.headScan = 0
			}
			l.setDeadline(c, c.reqStart+int64(timeout))
			data = nil
		case stepBad:
			c.closing, c.linger = true, true // the rest of the input is not read
			if s.cfg.H2C && !http1Shaped(data) {
				out = out[:before] // a broken HTTP/2 preface: see http1Shaped
			}
			data = nil
		case stepServed:
			c.reqStart, c.headScan = 0, 0
			data = rest
			if st.ctx.closeConn {
				c.closing, c.linger = true, len(rest) > 0
				data = nil
			}
		}
	}
	if !kept {
		c.dropIn() // everything in it was served
	}
	if !l.writeOut(c, st, out) {
		return false
	}
	if c.closing && !c.blocked {
		l.closeAfterResponse(c)
		return false
	}
	if c.in == nil && !c.blocked {
		l.setDeadline(c, now+int64(s.cfg.IdleTimeout))
	}
	return true
}

// handOver gives c to a worker with the request parsed into the seat's
// Ctx, which spans data[:n] (its head only if body: the body is still
// arriving): data moves to c.in and the Ctx's views with it, so the
// worker does not parse the request again, and the seat takes a fresh Ctx.
func (l *loop) handOver(c *conn, st *seat, data []byte, n int, body bool, now int64) {
	ctx := st.ctx
	from := data
	c.keep(data)
	ctx.moveViews(from, c.in)
	c.parsed, c.parsedLen, c.parsedBody = ctx, n, body
	st.ctx = getCtx(l.srv)
	st.site.ctx = st.ctx
	c.reqStart, c.headScan = 0, 0
	c.state.Store(stBusy)
	l.wheel.schedule(&c.we, now+l.minTimer)
	l.srv.workers.submit(c.task)
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
