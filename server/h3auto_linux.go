//go:build linux

package server

import "runtime"

// HTTP/3 streams in Auto mode: a native handler starts on the loop, as an
// HTTP/2 stream's does (h2auto_linux.go), watched against the budget; one
// that outlives it, or Flushes, is moved off, and from then on it is its
// stream's worker: it posts its response, which the loop writes into QUIC.
// Routes the loop learned wait go to workers up front. The connection
// stays the loop's throughout.

// startAuto runs a native handler's stream on the loop, or on a worker
// for a route that waits.
func (st *h3stream) startAuto() {
	l := st.c.h.l
	route := routeOf(st.path())
	if l.routes.waits(route) {
		st.toWorker()
		return
	}
	s := l.srv
	seat := l.seat // this goroutine's, even once the loop has gone on
	ctx := seat.h2Ctx()
	st.fill(ctx)
	ctx.mover = seat // Flush moves it off: the client may keep it waiting
	seat.cur, seat.stream, seat.h3, seat.route = nil, nil, st, route
	st.onLoop = true
	s.counters.inflight.Add(1)
	seat.enter()
	returned := false
	defer func() {
		if !returned {
			st.exitedOnSeat(seat, ctx)
		}
	}()
	panicked := s.runHandler(ctx, nil)
	onLoop := seat.leave()
	returned = true
	seat.h3 = nil
	s.counters.inflight.Add(-1)
	s.counters.requests.Add(1)
	if onLoop {
		h := st.c.h
		h.resp, h.section = st.appendFinal(h.resp[:0], h.section, ctx, panicked, &h.fields)
		ctx.onStream, ctx.peer, ctx.mover = nil, nil, nil
		st.write(h.resp, true)
		return
	}
	// Moved off: this goroutine is the stream's worker now, and the loop
	// goes on without it.
	st.postFinal(ctx, panicked)
	ctx.onStream, ctx.peer, ctx.mover = nil, nil, nil
	runtime.Goexit() // off the loop's stack: serveOn sees seat.moved
}

// path returns the request's path, without its query.
func (st *h3stream) path() []byte {
	p := st.rr.Head.Path
	for i, b := range p {
		if b == '?' {
			return p[:i]
		}
	}
	return p
}

// movedOff makes the stream a worker's, for loop.moveOff: the handler
// posts its response from now on, and Flush waits for the loop.
func (st *h3stream) movedOff() {
	st.onLoop = false
	st.worker = true
	if st.ack == nil {
		st.ack = make(chan struct{}, 1)
	}
}

// exitedOnSeat ends a stream whose handler called runtime.Goexit on the
// loop: the loop goes on without this goroutine, and the stream is reset.
func (st *h3stream) exitedOnSeat(seat *seat, ctx *Ctx) {
	l := seat.l
	if !seat.moved {
		l.moveOff(seat, seat.seq, true)
	}
	seat.awaitHandOver()
	seat.h3 = nil
	if !ctx.exited {
		l.srv.counters.inflight.Add(-1)
		l.srv.counters.requests.Add(1)
	}
	ctx.onStream, ctx.mover = nil, nil
	st.mu.Lock()
	st.postedReset = true
	st.mu.Unlock()
	st.post(nil, true, false)
}
