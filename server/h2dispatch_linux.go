//go:build linux

package server

import (
	"github.com/gust-http/gust/internal/http2"
)

// The loop's side of HTTP/2 streams: a request's arrival, its body, its
// dispatch to a handler, and its response given to the engine as the
// windows allow.

// h2Request starts a stream whose HEADERS arrived.
func (l *loop) h2Request(hc *h2conn, e *http2.ServerEvent, now int64) {
	s := l.srv
	st := newH2Stream(hc, e, now)
	hc.streams[st.id] = st
	if st.req.ContentLength > s.cfg.MaxBodyBytes {
		l.h2Answer(hc, st, 413, now)
		return
	}
	switch {
	case st.noBody:
		l.h2Dispatch(hc, st, now)
	case s.h2StreamsBodies():
		st.streamed = true
		st.wake = make(chan struct{}, 1)
		l.h2Dispatch(hc, st, now)
	}
}

// h2Body takes request body bytes: into the stream's pipe for a handler
// reading as it goes (credit comes back as it reads), or into the whole
// body (credit at once, bounded by MaxBodyBytes).
func (l *loop) h2Body(hc *h2conn, st *h2stream, data []byte, end bool) {
	c := hc.c
	if st.streamed {
		st.mu.Lock()
		taken := st.inErr == nil
		if taken {
			if st.inOff == len(st.in) {
				st.in, st.inOff = st.in[:0], 0
			} else if st.inOff > len(st.in)/2 {
				st.in = st.in[:copy(st.in, st.in[st.inOff:])]
				st.inOff = 0
			}
			st.in = append(st.in, data...)
			st.uncredited += len(data)
		}
		st.eof = st.eof || end
		st.mu.Unlock()
		st.signal()
		if !taken {
			c.out = hc.sc.Consume(c.out, st.id, len(data))
		}
		return
	}
	c.out = hc.sc.Consume(c.out, st.id, len(data))
	if st.dispatched {
		return // a native handler answered early; the rest is dropped
	}
	if int64(len(st.body)+len(data)) > l.srv.cfg.MaxBodyBytes {
		l.h2Answer(hc, st, 413, l.e.now())
		return
	}
	if st.body == nil && len(data) > 0 {
		st.body = getBuf()
		st.loopBodyBuf = true
	}
	st.body = append(st.body, data...)
	if end {
		l.h2Dispatch(hc, st, l.e.now())
	}
}

// h2Trailers takes request trailers, which end the body.
func (l *loop) h2Trailers(hc *h2conn, st *h2stream, fields []http2.Field) {
	if st.streamed {
		st.mu.Lock()
		for _, f := range fields {
			st.trailer = append(st.trailer, http2.Field{Name: string([]byte(f.Name)), Value: string([]byte(f.Value))})
		}
		st.eof = true
		st.mu.Unlock()
		st.signal()
		return
	}
	if !st.dispatched {
		l.h2Dispatch(hc, st, l.e.now())
	}
}

// h2Answer answers a stream from the loop without its handler (413).
func (l *loop) h2Answer(hc *h2conn, st *h2stream, status int, now int64) {
	st.dispatched = true
	if st.loopBodyBuf && st.body != nil {
		putBuf(st.body)
		st.body = nil
	}
	l.startPart(hc, st, h2part{status: status, fields: []http2.Field{{Name: "content-length", Value: "0"}}, end: true}, now)
}

// h2Dispatch runs the stream's handler: on the loop now (Inline), on a
// worker (Pooled), or at the end of the turn, on the loop or a worker as
// Auto mode decides (queueH2Run).
func (l *loop) h2Dispatch(hc *h2conn, st *h2stream, now int64) {
	st.dispatched = true
	switch l.srv.cfg.Mode {
	case Inline:
		l.h2Inline(hc, st, now)
	case Auto:
		l.queueH2Run(hc, st)
	default:
		l.h2Submit(hc, st)
	}
}

// h2Submit gives a stream to a worker, with the channel its Flush waits on.
func (l *loop) h2Submit(hc *h2conn, st *h2stream) {
	st.ack = make(chan error, 1)
	l.h2Remote(hc)
	l.srv.workers.submit(st.serveWork)
}

// h2Remote formats the client's address for the adapter's RemoteAddr on
// the loop, before the first stream that may run off it: handlers of
// several streams read it.
func (l *loop) h2Remote(hc *h2conn) {
	if _, adapter := l.srv.Handler.(*httpAdapter); adapter && hc.remote == "" {
		hc.remote = hc.c.remoteString()
	}
}

// endH2Stream forgets a stream that was reset or failed: its handler sees
// err, and the body bytes it did not take are given back to the
// connection's window.
func (l *loop) endH2Stream(hc *h2conn, st *h2stream, err error) {
	if hc.streams[st.id] != st {
		return
	}
	st.fail(err)
	l.forgetH2Stream(hc, st)
}

// finishH2Stream forgets a stream whose response is complete.
func (l *loop) finishH2Stream(hc *h2conn, st *h2stream) {
	if hc.streams[st.id] != st {
		return
	}
	st.gone.Store(true)
	st.mu.Lock()
	if st.inErr == nil && !st.eof {
		st.inErr = errStreamGone
	}
	st.mu.Unlock()
	st.signal()
	l.forgetH2Stream(hc, st)
}

func (l *loop) forgetH2Stream(hc *h2conn, st *h2stream) {
	c := hc.c
	st.mu.Lock()
	left := st.uncredited
	st.uncredited = 0
	st.mu.Unlock()
	if left > 0 {
		c.out = hc.sc.Consume(c.out, st.id, left)
	}
	st.releaseSend()
	delete(hc.streams, st.id)
	hc.lastActive = l.e.now()
}

// applyH2 applies what a worker posted for st.
func (l *loop) applyH2(hc *h2conn, st *h2stream, now int64) {
	c := hc.c
	if n := st.nextCredit; n > 0 {
		st.nextCredit = 0
		st.mu.Lock()
		n = min(n, st.uncredited)
		st.uncredited -= n
		st.mu.Unlock()
		c.out = hc.sc.Consume(c.out, st.id, n)
	}
	if !st.hasNext {
		return
	}
	p := st.next
	st.next, st.hasNext = h2part{}, false
	if st.gone.Load() || hc.streams[st.id] != st {
		if p.wait {
			select {
			case st.ack <- errStreamGone:
			default:
			}
		}
		p.free()
		return
	}
	l.startPart(hc, st, p, now)
}

// startPart begins giving a response part to the engine: headers now, the
// body as pumpH2 finds room.
func (l *loop) startPart(hc *h2conn, st *h2stream, p h2part, now int64) {
	c := hc.c
	if p.reset {
		c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeInternal)
		p.free()
		l.endH2Stream(hc, st, errStreamGone)
		return
	}
	if p.status > 0 {
		endNow := p.end && len(p.body) == 0 && p.trailers == nil
		var err error
		c.out, err = hc.sc.WriteHeaders(c.out, st.id, p.status, p.fields, endNow)
		if err != nil {
			p.free()
			l.endH2Stream(hc, st, errStreamGone)
			return
		}
		if endNow {
			p.free()
			l.finishH2Stream(hc, st)
			return
		}
		p.status, p.fields = 0, nil // written: the fields may be the loop's scratch
	}
	st.send = p
	st.since = now
	if !st.inSending {
		st.inSending = true
		hc.sending = append(hc.sending, st)
	}
}

// pumpH2 gives response bodies to the engine while the windows admit them
// and the socket keeps up.
func (l *loop) pumpH2(hc *h2conn, now int64) {
	j := 0
	for _, st := range hc.sending {
		if hc.streams[st.id] == st && !l.pumpStream(hc, st, now) {
			hc.sending[j] = st
			j++
			continue
		}
		st.inSending = false
	}
	clear(hc.sending[j:])
	hc.sending = hc.sending[:j]
}

// pumpStream gives st's part to the engine; true once the part is done.
func (l *loop) pumpStream(hc *h2conn, st *h2stream, now int64) bool {
	c, sc, p := hc.c, hc.sc, &st.send
	for {
		pend := sc.Pending(st.id)
		if pend != st.pend {
			st.pend, st.since = pend, now // the client's window moved: progress
		}
		if pend > 0 || len(c.out) >= outHigh {
			return false
		}
		if len(p.body) > 0 {
			piece := p.body[:min(len(p.body), 64<<10)]
			p.body = p.body[len(piece):]
			endNow := len(p.body) == 0 && p.end && p.trailers == nil
			var err error
			c.out, err = sc.WriteData(c.out, st.id, piece, endNow)
			if err != nil {
				l.endH2Stream(hc, st, errStreamGone)
				return true
			}
			p.endSent = endNow
			st.since = now
			continue
		}
		if p.end {
			if !p.endSent {
				if p.trailers != nil {
					c.out, _ = sc.WriteTrailers(c.out, st.id, p.trailers)
				} else {
					c.out, _ = sc.WriteData(c.out, st.id, nil, true)
				}
				p.endSent = true
			}
			l.finishH2Stream(hc, st)
			return true
		}
		// A flushed part, all framed: its worker may go on.
		p.free()
		select {
		case st.ack <- nil:
		default:
		}
		return true
	}
}

// nextH2Deadline is when the wheel should look at hc next: the first of
// WriteTimeout for stuck output, ReadTimeout for a body that does not
// come, and IdleTimeout with no stream. Each counts from a fixed time, so
// a client that keeps sending frames does not push them back.
func (l *loop) nextH2Deadline(hc *h2conn, now int64) int64 {
	cfg := &l.srv.cfg
	next := now + int64(cfg.IdleTimeout) // handlers running: no timeout but a look now and then
	if len(hc.streams) == 0 {
		next = hc.lastActive + int64(cfg.IdleTimeout)
	}
	if hc.c.blocked {
		next = min(next, hc.blockedSince+int64(cfg.WriteTimeout))
	}
	for _, st := range hc.streams {
		switch {
		case st.inSending:
			next = min(next, st.since+int64(cfg.WriteTimeout))
		case !st.dispatched:
			next = min(next, st.started+int64(cfg.ReadTimeout))
		}
	}
	return next
}

// dueH2 is the wheel's callback for an HTTP/2 connection: WriteTimeout
// for a socket or streams that do not take output, ReadTimeout for a
// request body that does not come, IdleTimeout with GOAWAY. It returns the
// next deadline, or 0 after closing.
func (l *loop) dueH2(c *conn, now int64) int64 {
	hc := c.h2
	cfg := &l.srv.cfg
	if c.blocked && now-hc.blockedSince >= int64(cfg.WriteTimeout) {
		l.closeH2(c)
		return 0
	}
	for _, st := range hc.streams {
		switch {
		case st.inSending && now-st.since >= int64(cfg.WriteTimeout):
			// A zero window that never opens: the slow reader's stream is cut.
			c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeCancel)
			l.endH2Stream(hc, st, errWriteTimeout)
		case !st.dispatched && now-st.started >= int64(cfg.ReadTimeout):
			c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeCancel)
			l.endH2Stream(hc, st, errStreamGone)
		}
	}
	if len(hc.streams) == 0 && !c.blocked && now-hc.lastActive >= int64(cfg.IdleTimeout) {
		if !hc.goAway {
			hc.goAway = true
			c.out = hc.sc.Shutdown(c.out)
		}
		hc.closing = true
	}
	l.afterH2(c, now)
	if c.state.Load() == stClosed {
		return 0
	}
	return c.deadline.Load()
}

// drainH2 is Shutdown's step for an HTTP/2 connection: GOAWAY once, then
// close when every accepted stream is finished and the output written.
func (l *loop) drainH2(c *conn) {
	hc := c.h2
	now := l.e.now()
	if !hc.goAway {
		hc.goAway = true
		if c.out == nil {
			c.out = getBuf()
		}
		c.out = hc.sc.Shutdown(c.out)
	}
	l.afterH2(c, now)
}

// h2StreamsBodies reports whether HTTP/2 request bodies reach handlers as
// they arrive: for the net/http adapter in Pooled and Auto modes, whose
// r.Body is a reader (in Auto mode such a stream runs on a worker unless
// its whole body is in when the loop starts it: see queueH2Run); native
// handlers get the whole body in Ctx.Body (bounded by MaxBodyBytes), as
// HTTP/2 streams give no socket to read from.
func (s *Server) h2StreamsBodies() bool {
	_, adapter := s.Handler.(*httpAdapter)
	return adapter && s.cfg.Mode != Inline
}
