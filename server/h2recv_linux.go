//go:build linux

package server

import (
	"github.com/gust-http/gust/internal/http2"
)

// The receiving side of an HTTP/2 connection's streams, on its loop: a
// request's arrival, its body and trailers, and its dispatch to a handler
// (on the loop, a worker, or Auto's queue).

// request starts a stream whose HEADERS arrived.
func (hc *h2conn) request(e *http2.ServerEvent, now int64) {
	l := hc.c.l
	s := l.srv
	st := newH2Stream(hc, e, now)
	hc.streams[st.id] = st
	if st.req.ContentLength > s.cfg.MaxBodyBytes {
		hc.answer(st, 413, now)
		return
	}
	switch {
	case st.noBody, st.tunnel:
		hc.dispatch(st, now)
	case s.h2StreamsBodies():
		st.streamed = true
		st.wake = make(chan struct{}, 1)
		hc.dispatch(st, now)
	}
}

// h2Body takes request body bytes: into the stream's pipe for a handler
// reading as it goes (credit comes back as it reads), or into the whole
// body (credit at once, bounded by MaxBodyBytes).
func (hc *h2conn) body(st *h2stream, data []byte, end bool) {
	l := hc.c.l
	c := hc.c
	if st.tunnel {
		hc.tunnelData(st, data, end)
		return
	}
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
		hc.answer(st, 413, l.e.now())
		return
	}
	if st.body == nil && len(data) > 0 {
		st.body = getBuf()
		st.loopBodyBuf = true
	}
	st.body = append(st.body, data...)
	if end {
		hc.dispatch(st, l.e.now())
	}
}

// h2Trailers takes request trailers, which end the body.
func (hc *h2conn) trailers(st *h2stream, fields []http2.Field) {
	l := hc.c.l
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
		hc.dispatch(st, l.e.now())
	}
}

// h2Answer answers a stream from the loop without its handler (413).
func (hc *h2conn) answer(st *h2stream, status int, now int64) {
	st.dispatched = true
	if st.loopBodyBuf && st.body != nil {
		putBuf(st.body)
		st.body = nil
	}
	hc.startPart(st, h2part{status: status, fields: []http2.Field{{Name: "content-length", Value: "0"}}, end: true}, now)
}

// dispatch runs the stream's handler where the loop's dispatcher says:
// at the end of the turn, on the loop or a worker as it decides then, if
// it watches its handlers (Auto: queueRun); on a worker if work can
// leave the loop (Pooled); else on the loop now (Inline).
func (hc *h2conn) dispatch(st *h2stream, now int64) {
	st.dispatched = true
	switch d := hc.c.l.dispatcher(); {
	case d.watched():
		hc.queueRun(st)
	case d.offLoop():
		hc.submit(st)
	default:
		hc.runInline(st, now)
	}
}

// h2Submit gives a stream to a worker, with the channel its Flush waits on.
func (hc *h2conn) submit(st *h2stream) {
	l := hc.c.l
	st.ack = make(chan error, 1)
	hc.formatRemote()
	l.srv.workers.submit(st)
}

// formatRemote formats the client's address for the adapter's RemoteAddr
// on the loop, before the first stream that may run off it: handlers of
// several streams read it, the connection's cached copy included (an
// adapter wrapped in a native handler asks the conn), and once it is made
// they only read. Whatever the handler: a native one may wrap the
// adapter. One address per connection.
func (hc *h2conn) formatRemote() {
	if hc.remote == "" {
		hc.remote = hc.c.remoteString()
	}
}

// h2StreamsBodies reports whether HTTP/2 request bodies reach handlers as
// they arrive: for the net/http adapter in Pooled and Auto modes, whose
// r.Body is a reader (in Auto mode such a stream runs on a worker unless
// its whole body is in when the loop starts it: see queueRun); native
// handlers get the whole body in Ctx.Body (bounded by MaxBodyBytes), as
// HTTP/2 streams give no socket to read from.
func (s *Server) h2StreamsBodies() bool {
	_, adapter := s.Handler.(*httpAdapter)
	return adapter && s.cfg.Mode != Inline
}
