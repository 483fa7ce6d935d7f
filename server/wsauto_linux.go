//go:build linux

package server

import (
	"runtime"

	"github.com/gust-http/gust/internal/websocket"
)

// WebSocket callbacks in Auto mode: OnMessage starts on the loop, watched
// against HandlerBudget as an HTTP handler is (auto_linux.go). One that
// outlives it is moved off: it keeps its goroutine, and the loop goes on in
// a new one. The connection is that goroutine's (stBusy) until it has acted
// on the rest of the turn's input; then it goes back to the loop, which
// reads what came meanwhile and writes what was sent. So a connection's
// callbacks never run at once, and in order, while its loop serves the
// others. OnOpen and OnClose run on the loop, unwatched: they must not wait.
// A WebSocket on an HTTP/2 stream (RFC 8441) is watched the same way, with
// its stream rather than its connection handed over (h2wsauto_linux.go).
//
// A callback that waits costs its loop one HandlerBudget each time before
// it moves; a route of WebSocket messages is not learned as HTTP routes
// are. An application whose every message waits does better to hand the
// work to its own goroutines and Send from there (Send is safe anywhere).

// messageWatched calls OnMessage for the message e on the loop, with seat
// st, watched; false if the watchdog moved it off the loop meanwhile (the
// calling goroutine is no longer the loop's).
func (ws *WSConn) messageWatched(st *seat, e *websocket.Event) bool {
	ws.c.l.srv.counters.wsMessagesIn.Add(1)
	f := ws.cfg.OnMessage
	if f == nil {
		return true
	}
	st.cur, st.stream, st.route = ws.c, ws.st, wsRoute // ws.st: nil over HTTP/1.1
	st.enter()
	f(ws, WSMessageType(e.Op), e.Payload)
	onLoop := st.leave()
	st.stream = nil
	return onLoop
}

// finishMoved is the rest of a turn whose OnMessage was moved off the loop,
// on the goroutine that ran it, which owns the connection now: the events
// after it (their callbacks called directly: this goroutine is not the
// loop's), the input kept, and the connection given back to its loop. It
// ends the goroutine.
func (ws *WSConn) finishMoved(c *conn, st *seat, events []websocket.Event, rest []byte, err error) {
	l := c.l
	l.blipIfQuick(st)
	for i := range events {
		ws.event(&events[i])
	}
	ws.afterEvents(c, rest, err) // rest lives in st.buf or c.in: both still ours
	ws.mu.Lock()
	ws.queued, ws.back = true, true // what was sent meanwhile waits for this post
	ws.mu.Unlock()
	c.state.Store(stIdle) // stBusyEvent too: the loop reads it again anyway
	if l.e.stopping.Load() {
		l.closeIfStopped(c)
	} else {
		l.post(c)
	}
	runtime.Goexit() // off the loop's stack: serveOn sees st.moved
}
