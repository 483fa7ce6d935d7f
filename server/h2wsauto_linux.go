//go:build linux

package server

import (
	"runtime"

	"github.com/gust-http/gust/internal/websocket"
)

// WebSocket callbacks on HTTP/2 streams (RFC 8441) in Auto mode: as over
// HTTP/1.1 (wsauto_linux.go), OnMessage starts on the loop, watched
// against HandlerBudget, and one that outlives it is moved off: it keeps
// its goroutine and the loop goes on in a new one. OnOpen and OnClose run
// unwatched, as there.
//
// A stream's DATA is not fed to its engine where the connection's frames
// are read but held in wsIn (a copy: the read buffer is the loop's) and
// fed at the end of the turn, from the queue HTTP/2 handlers start from
// (h2auto_linux.go): a callback moved off in the middle of the frames
// would take the rest of the read, every stream's, with it.
//
// While a callback is off the loop (wsOff, set by loop.moveOff before the
// loop goes on), the connection and its other streams stay the loop's;
// the stream's engine, wsIn and callbacks are the callback's goroutine's.
// The loop holds the stream's DATA that comes meanwhile in wsHold, with
// its window (so the client's stream window bounds it), and neither
// writes its output nor pings it; sends from other goroutines wait in
// the outbox. The goroutine calls the callbacks of the rest of the events
// it was fed, in order, then hands the stream back (handBack): the loop
// feeds what it held, then writes. So a stream's callbacks never run at
// once and keep their order, as a connection's do over HTTP/1.1.
//
// A stream reset, or its connection closed, while its callback is off:
// the loop forgets the stream and frees its own buffers, and whichever of
// the loop and the goroutine comes second under hc.mu releases the
// WebSocket (OnClose with 1006, the engine): the goroutine if the stream
// was gone when it came to hand it back, else the loop.

// holdWS keeps DATA for st's WebSocket until the end of the turn (or, if
// its callback is off the loop, until it is back); credit: its window is
// given back once it is fed (DATA that came before the 200 was credited
// apart).
func (hc *h2conn) holdWS(st *h2stream, data []byte, end, credit bool, now int64) {
	st.ws.lastRead, st.ws.pingSent = now, false
	buf := &st.wsIn
	if st.wsOff {
		buf = &st.wsHold
	}
	if len(data) > 0 {
		if *buf == nil {
			*buf = getBuf()
		}
		*buf = append(*buf, data...)
	}
	st.wsEnd = st.wsEnd || end
	if credit {
		st.wsUnfed += len(data)
	}
	if !st.wsOff {
		hc.queueWS(st)
	}
}

// queueWS queues st's WebSocket to be fed at the end of the turn, once.
func (hc *h2conn) queueWS(st *h2stream) {
	if !st.wsQueued {
		st.wsQueued = true
		hc.queueRun(st)
	}
}

// runWS feeds st's held DATA to its engine and acts on the events, on the
// loop at the end of the turn, OnMessage watched. If a callback is moved
// off, the goroutine that ran it finishes the events and does not return.
func (hc *h2conn) runWS(st *h2stream, now int64) {
	st.wsQueued = false
	if hc.streams[st.id] != st || st.wsOff {
		return // ended meanwhile (releaseWS freed wsIn), or queued again once back
	}
	ws := st.ws
	if len(st.wsIn) > 0 && !ws.closing {
		if st.wsOut == nil {
			st.wsOut = getBuf()
		}
		ws.lockEng()
		out, n, err := ws.eng.Feed(st.wsOut, st.wsIn)
		ws.unlockEng()
		st.wsOut = out
		events := ws.eng.Events()
		seat := hc.c.l.seat // this goroutine's, even once the loop has gone on
		for i := range events {
			if events[i].Kind == websocket.EventMessage {
				if !ws.messageWatched(seat, &events[i]) {
					hc.finishMovedWS(st, seat, events[i+1:], n, err) // never returns
				}
				continue
			}
			ws.event(&events[i])
		}
		st.afterFeed(n, err)
	} else if st.wsIn != nil && ws.closing {
		putBuf(st.wsIn) // after the close handshake, frames are dropped
		st.wsIn = nil
	}
	if n := st.wsUnfed; n > 0 {
		st.wsUnfed = 0
		if len(st.wsOut)+hc.sc.Pending(st.id) > ws.cfg.maxBuffered() {
			st.mu.Lock()
			st.uncredited += n // given back as the output drains (pumpWS)
			st.mu.Unlock()
		} else {
			c := hc.c
			if c.out == nil {
				c.out = getBuf()
			}
			c.out = hc.sc.Consume(c.out, st.id, n)
		}
	}
	if st.wsEnd && !ws.closing {
		ws.end(websocket.CloseAbnormal, "") // END_STREAM without a close frame: as TCP's FIN without one
		ws.closing = true
	}
	hc.kickWS(st)
}

// afterFeed ends a feed of wsIn whose events were acted on: the engine's
// error ends the WebSocket (its close frame is in wsOut), or what was not
// consumed (part of a frame) stays in wsIn.
func (st *h2stream) afterFeed(n int, err error) {
	ws := st.ws
	if err != nil {
		if ce, _ := err.(*websocket.CloseError); ce != nil {
			ws.end(ce.Code, ce.Reason)
		}
		ws.closing = true // our close frame is in wsOut: END_STREAM after it
		n = len(st.wsIn)
	}
	if rest := st.wsIn[n:]; len(rest) > 0 {
		st.wsIn = st.wsIn[:copy(st.wsIn, rest)] // only now: events alias wsIn
	} else {
		putBuf(st.wsIn)
		st.wsIn = nil
	}
	ws.lockEng()
	ws.eng.Recycle()
	ws.unlockEng()
}

// finishMovedWS is the rest of a feed whose OnMessage was moved off the
// loop, on the goroutine that ran it: the events after it (their
// callbacks called directly: this goroutine is not the loop's), then the
// stream handed back. It ends the goroutine.
func (hc *h2conn) finishMovedWS(st *h2stream, seat *seat, events []websocket.Event, n int, err error) {
	hc.c.l.blipIfQuick(seat)
	ws := st.ws
	for i := range events {
		ws.event(&events[i])
	}
	st.afterFeed(n, err)
	st.handBack()
	runtime.Goexit() // off the loop's stack: serveOn sees seat.moved
}

// handBack gives st's WebSocket back to the loop, from the goroutine of a
// callback that was moved off; if the stream is gone (reset, or its
// connection closed, while the callback ran), the loop has left the
// WebSocket to this goroutine, which releases it.
func (st *h2stream) handBack() {
	hc := st.hc
	hc.mu.Lock()
	if hc.dead || st.gone.Load() {
		hc.mu.Unlock()
		ws := st.ws
		ws.release(ws.c)
		if st.wsIn != nil {
			putBuf(st.wsIn)
			st.wsIn = nil
		}
		return
	}
	st.wsBack = true
	wake := st.readyLocked()
	hc.mu.Unlock()
	if wake {
		hc.queue()
	}
}

// takeBack is the loop's side of handBack, for a post on a stream whose
// callback is off the loop: false while it still is. Once it is back,
// the DATA held meanwhile is queued to be fed.
func (hc *h2conn) takeBack(st *h2stream) bool {
	hc.mu.Lock()
	back := st.wsBack
	st.wsBack = false
	hc.mu.Unlock()
	if !back {
		return false
	}
	st.wsOff = false
	if hc.streams[st.id] != st {
		return false // ended meanwhile: the loop released it (awayWS was false)
	}
	if st.wsHold != nil {
		if st.wsIn == nil {
			st.wsIn, st.wsHold = st.wsHold, nil
		} else {
			st.wsIn = append(st.wsIn, st.wsHold...)
			putBuf(st.wsHold)
			st.wsHold = nil
		}
	}
	hc.queueWS(st)
	return true
}

// awayWS reports whether st's WebSocket is a moved callback's goroutine's
// (it has not handed it back), for the loop ending the stream.
func (st *h2stream) awayWS() bool {
	if !st.wsOff {
		return false
	}
	hc := st.hc
	hc.mu.Lock()
	defer hc.mu.Unlock()
	return !st.wsBack
}
