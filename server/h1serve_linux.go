//go:build linux

package server

import (
	"bytes"
)

// HTTP/1.1 on the loop: requests parsed in c.in and served in order
// (h1request.go) on the loop (Inline, Auto) or handed to a worker with the
// request already parsed (Pooled, and Auto for a route that waits).

// h1proto is HTTP/1.1, the protocol every connection starts with. Its
// state lives on the conn (in, out, rd, headScan, parsed), since a worker
// serving the connection uses it too; the value itself is empty, so
// storing it in c.proto allocates nothing.
type h1proto struct{}

func (h1proto) serve(c *conn, data []byte, drained bool, now int64) bool {
	l := c.l
	// A head still missing its end cannot have been completed by bytes
	// without a line feed: skip parsing it all again.
	if c.headScan > 0 && len(c.in) > 0 && len(data) <= l.srv.cfg.MaxHeaderBytes && bytes.IndexByte(data[c.headScan:], '\n') < 0 {
		c.headScan = int32(len(data))
		return true
	}
	c.moreToRead = !drained
	return l.serveInput(c, data, now)
}

// reading: a client that does not read its responses is not read either.
func (h1proto) reading(c *conn) bool { return !c.blocked }

func (h1proto) writable(c *conn, now int64) bool {
	l := c.l
	if c.file != nil {
		if !l.sendFile(c) {
			return false
		}
		if c.file == nil && !c.closing && len(c.in) > 0 {
			// Requests that came after the file's wait in c.in.
			return l.serveInput(c, c.in, now)
		}
	} else if !l.flushOut(c) {
		return false
	}
	if c.blocked {
		return true
	}
	if c.closing {
		l.closeAfterResponse(c)
		return false
	}
	l.setDeadline(c, now+int64(l.srv.cfg.IdleTimeout))
	return true
}

func (h1proto) endTurn(c *conn, now int64) {}

// due: the one deadline (set for the head, the body, the write or idle).
func (h1proto) due(c *conn, now int64) int64 { return c.dueDeadline(now) }

func (h1proto) shutdown(c *conn, begin bool) (took, began bool) { return false, false }

func (h1proto) posted(c *conn, now int64) {}

func (h1proto) release(c *conn) {}

// serveInput serves the complete requests at the start of data on the
// loop (Inline and Auto modes) or hands the connection to a worker with
// the request it parsed (Pooled mode, and in Auto mode a request whose
// route waits or whose body is still arriving). It returns false if the
// loop no longer owns an open connection.
func (l *loop) serveInput(c *conn, data []byte, now int64) bool {
	s := l.srv
	if data[0] == 'P' && s.cfg.H2C {
		// h2c with prior knowledge: the whole preface switches c to
		// HTTP/2, which takes the input; a part of it waits for the rest.
		switch prefix, whole := isH2Preface(data); {
		case whole:
			return newH2Conn(c, now).serve(c, data, false, now)
		case prefix:
			c.keep(data)
			c.headScan = 0
			return true
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
			c.headScan = int32(len(c.in))
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
			if up := st.ctx.upgrade; up != nil {
				st.ctx.upgrade = nil
				return c.upgradeOnLoop(st, up, rest, out, now)
			}
			if st.ctx.closeConn {
				c.closing, c.linger = true, len(rest) > 0
				data = nil
			}
			if st.ctx.file != nil {
				// The head, then the file: requests after it wait in c.in
				// while the socket is full (h1proto.writable serves them).
				if !l.takeFile(c, st, st.ctx, out) {
					return false
				}
				out = st.out[:0]
				if c.file != nil && len(data) > 0 {
					c.keep(data)
					kept = true
					data = nil
				}
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
	c.parsed, c.parsedLen, c.parsedBody = ctx, int32(n), body
	st.ctx = getCtx(l.srv)
	st.site.ctx = st.ctx
	c.reqStart, c.headScan = 0, 0
	c.state.Store(stBusy)
	l.wheel.schedule(&c.we, now+l.minTimer)
	l.srv.workers.submit(c)
}

// http1Shaped reports whether data, a request the HTTP/1.1 parser
// refused, at least names an HTTP version on its first line. On a port
// that takes h2c beside HTTP/1.1, bytes that do not (h2spec's
// "INVALID CONNECTION PREFACE", a preface with a typo) are as likely a
// broken HTTP/2 client as an HTTP/1.x one, and the answer that fits both
// is HTTP/2's to an invalid preface (RFC 9113 section 3.4): close without
// a response, rather than write HTTP/1.1 bytes at an HTTP/2 client.
func http1Shaped(data []byte) bool {
	line := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line = data[:i]
	}
	return bytes.Contains(line, []byte(" HTTP/"))
}
