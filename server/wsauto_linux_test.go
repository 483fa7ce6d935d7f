//go:build linux

package server

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/websocket"
)

// TestWebSocketCallbackThatWaitsMovesOffTheLoop: on one loop in Auto mode,
// an OnMessage that sleeps is moved off while another connection's echoes
// go on; the sleeper's messages (three frames sent at once, so one read
// holds them all) are acted on in order, one at a time, and the
// connection is the loop's again afterwards (it echoes, answers a ping).
func TestWebSocketCallbackThatWaitsMovesOffTheLoop(t *testing.T) {
	ws := &WebSocket{
		OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
			if len(data) > 5 && string(data[:5]) == "sleep" {
				time.Sleep(300 * time.Millisecond)
			}
			ws.Send(typ, data)
		},
	}
	s := start(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) }), Config{Mode: Auto, Loops: 1})
	slow := dialWS(t, s, "/ws", "")
	fast := dialWS(t, s, "/ws", "")

	var batch []byte
	for i := range 3 {
		batch, _ = slow.eng.AppendMessage(batch, websocket.OpText, fmt.Appendf(nil, "sleep %d", i))
	}
	slow.write(batch)
	waitMoved(t, s, 1) // the first sleeper runs, moved off the loop

	// The other connection is served meanwhile: 20 echoes well inside the
	// 900 ms the sleeper's three messages take.
	began := time.Now()
	for i := range 20 {
		msg := fmt.Sprintf("fast %d", i)
		fast.send(websocket.OpText, msg)
		fast.expect(websocket.EventMessage, websocket.OpText, 0, msg)
	}
	if d := time.Since(began); d > 600*time.Millisecond {
		t.Errorf("20 echoes beside a waiting callback took %v: the loop waited with it", d)
	}
	for i := range 3 {
		slow.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprintf("sleep %d", i))
	}
	// Back on the loop: it echoes, and the engine answers pings.
	slow.send(websocket.OpBinary, "after")
	slow.expect(websocket.EventMessage, websocket.OpBinary, 0, "after")
	slow.write(slow.eng.AppendPing(nil, []byte("ping")))
	slow.expect(websocket.EventPong, 0, 0, "ping")
	if st := s.Stats(); st.MovedOff == 0 {
		t.Errorf("no handler was moved off the loop (stats %+v)", st)
	}
}

// TestWebSocketMovedCallbacksOfOneConnectionNeverOverlap: a connection
// whose every callback waits gets them one at a time, in order, while its
// messages keep arriving.
func TestWebSocketMovedCallbacksOfOneConnectionNeverOverlap(t *testing.T) {
	var running, overlaps atomic.Int32
	ws := &WebSocket{
		OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
			if running.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(20 * time.Millisecond)
			running.Add(-1)
			ws.Send(typ, data)
		},
	}
	s := start(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) }), Config{Mode: Auto, Loops: 1})
	c := dialWS(t, s, "/ws", "")
	const n = 15
	for i := range n {
		c.send(websocket.OpText, fmt.Sprint(i))
		if i%4 == 0 {
			time.Sleep(5 * time.Millisecond) // some arrive while one waits
		}
	}
	for i := range n {
		c.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprint(i))
	}
	if got := overlaps.Load(); got != 0 {
		t.Errorf("%d callbacks of one connection ran while another of it did", got)
	}
}
