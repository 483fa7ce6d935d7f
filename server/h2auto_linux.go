//go:build linux

package server

import "runtime"

// HTTP/2 streams in Auto mode: their handlers start on the loop, as
// HTTP/1.1 requests' do, and one that outlives its budget is moved off
// the same way (auto_linux.go), except that its connection stays the
// loop's: from the move on, the handler is a worker of its stream and
// posts its response (h2stream.post), which the loop gives the engine.
//
// The loop starts streams at the end of its turn (run), not where the
// engine reports them: a handler moved off in the middle of serve would
// take the rest of that read's events, and the connection's input, with
// it. The queue and how far the loop got in it live in the loop, so the
// loop's new goroutine goes on with the next stream.
//
// Which streams go to workers at once: those of routes the loop learned
// wait (as for HTTP/1.1), and net/http adapter streams whose body is still
// arriving when the loop starts them (as HTTP/1.1 Auto hands a body still
// arriving to a worker), since reading it would wait. A native handler's
// body is whole before its stream is queued, and an adapter body that
// has all arrived (END_STREAM seen) is read without waiting, so both run
// on the loop.

// queueRun queues st, whose request (and, for a native handler, body)
// is in, to be started at the end of the turn, and hc to be finished
// after it.
func (hc *h2conn) queueRun(st *h2stream) {
	l := hc.c.l
	hc.formatRemote() // a handler on the loop may still move off
	q := &l.streams
	q.runq = append(q.runq, st)
	if !hc.inAfter {
		hc.inAfter = true
		q.after = append(q.after, hc)
	}
}

// pending reports whether streams or connections wait for run.
func (q *h2loop) pending() bool {
	return len(q.runq) > 0 || len(q.after) > 0
}

// run starts the streams queued this turn, then writes what their
// connections have to send. A handler moved off the loop does not return
// here: the loop's new goroutine goes on from runNext and afterNext.
func (r *h2loop) run(now int64) {
	for r.runNext < len(r.runq) {
		st := r.runq[r.runNext]
		r.runq[r.runNext] = nil
		r.runNext++ // before the handler: the loop may go on without it
		st.hc.startStream(st, now)
	}
	r.runq, r.runNext = r.runq[:0], 0
	for r.afterNext < len(r.after) {
		hc := r.after[r.afterNext]
		r.after[r.afterNext] = nil
		r.afterNext++
		hc.inAfter = false
		hc.endTurn(hc.c, now)
	}
	r.after, r.afterNext = r.after[:0], 0
}

// startH2Stream runs a queued stream's handler on the loop, or gives it
// to a worker (a route that waits, a body still arriving), or drops it if
// it was reset or its connection closed while queued.
func (hc *h2conn) startStream(st *h2stream, now int64) {
	l := hc.c.l
	if st.ws != nil {
		hc.runWS(st, now) // a WebSocket's DATA to feed (h2wsauto_linux.go)
		return
	}
	if hc.streams[st.id] != st {
		if st.loopBodyBuf && st.body != nil {
			putBuf(st.body) // no handler will take it
			st.body = nil
		}
		return
	}
	route := routeOf(st.req.Path)
	if l.routes.waits(route) || st.streamed && !st.bodyIn() {
		hc.submit(st)
		return
	}
	hc.runOnLoop(st, route, now)
}

// bodyIn reports whether a streamed body has all arrived.
func (st *h2stream) bodyIn() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.eof
}

// runOnLoop runs st's handler on the loop, watched against the budget. If
// it returns in time its response goes to the engine at once, as in
// Inline mode; if it was moved off, this goroutine posts the response as
// a worker would and ends. Its stream has no ack channel (so no
// allocation) until it is moved off (loop.moveOff makes one).
func (hc *h2conn) runOnLoop(st *h2stream, route uint32, now int64) {
	l := hc.c.l
	s := l.srv
	seat := l.seat // this goroutine's, even once the loop has gone on
	ctx := seat.h2Ctx()
	st.fill(ctx)
	ctx.mover = seat // Flush moves it off: the client may keep it waiting
	seat.cur, seat.stream, seat.route = hc.c, st, route
	s.counters.inflight.Add(1)
	seat.enter()
	returned := false
	defer func() {
		if !returned {
			st.exitedOnLoop(seat, ctx)
		}
	}()
	var p h2part
	a, adapter := s.Handler.(*httpAdapter)
	panicked := false
	if adapter {
		p = a.serveH2(ctx, st)
	} else {
		panicked = s.runHandler(ctx, nil)
	}
	onLoop := seat.leave()
	returned = true
	seat.stream = nil
	s.counters.inflight.Add(-1)
	s.counters.requests.Add(1)
	if !adapter {
		var scratch *fieldScratch // the loop's, while this goroutine runs it
		if onLoop {
			scratch = &l.streams.fields
		}
		p = st.finalPart(ctx, panicked, scratch)
	}
	if st.loopBodyBuf && st.body != nil {
		putBuf(st.body)
		st.body = nil
	}
	ctx.onStream, ctx.mover = nil, nil
	if onLoop {
		hc.startPart(st, p, now) // writes the headers now: the scratch fields are free again
		return
	}
	// Moved off: the loop and the stream's engine state are another
	// goroutine's now.
	l.blipIfQuick(seat)
	if st.post(&p, 0) != nil {
		p.free()
	}
	runtime.Goexit() // off the loop's stack: serveOn sees seat.moved
}

// exitedOnLoop finishes a stream whose handler, started on the loop,
// called runtime.Goexit: as in Pooled mode the stream is reset. The
// handler is moved off first if it was not, so that the loop goes on in
// another goroutine while this one ends.
func (st *h2stream) exitedOnLoop(seat *seat, ctx *Ctx) {
	l := seat.l
	if !seat.moved {
		l.moveOff(seat, seat.seq, true)
	}
	seat.awaitHandOver()
	seat.stream = nil
	if !ctx.exited {
		// runHandler counted a native handler's request; the adapter's
		// did not.
		l.srv.counters.inflight.Add(-1)
		l.srv.counters.requests.Add(1)
	}
	ctx.onStream, ctx.mover = nil, nil
	st.post(&h2part{reset: true}, 0)
}
