//go:build linux

package server

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

// h2wsAutoServer serves /ws with ws on one loop in Auto mode over h2c or
// TLS.
func h2wsAutoServer(t *testing.T, ws *WebSocket, overTLS bool) *Server {
	cfg := h2wsConfig(Auto, overTLS)
	cfg.Loops = 1
	return serveForTest(t, &Server{Handler: h2wsSetups(ws)[0].h, Config: cfg})
}

// waitGoroutines waits until the process runs at most want goroutines.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines, want at most %d (the baseline): a moved callback's goroutine stayed", runtime.NumGoroutine(), want)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// releaser closes release once: in the test, and at its end (before the
// server's Shutdown, registered earlier) if the test failed before, so
// that a callback still waiting on it does not hold the loop forever.
func releaser(t *testing.T, release chan struct{}) func() {
	var once sync.Once
	f := func() { once.Do(func() { close(release) }) }
	t.Cleanup(f)
	return f
}

// waitMoved waits until s has moved at least n handlers off their loops.
func waitMoved(t *testing.T, s *Server, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().MovedOff < n {
		if time.Now().After(deadline) {
			t.Fatalf("no callback was moved off the loop (stats %+v)", s.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWebSocketOverH2CallbackThatWaitsMovesOffTheLoop: on one loop in
// Auto mode, an OnMessage that sleeps on one RFC 8441 stream is moved off
// while another stream of the same connection and a stream of another
// connection echo; the sleeper's messages (three in one DATA frame, and
// more sent while it sleeps) are acted on in order, and the stream is the
// loop's again afterwards.
func TestWebSocketOverH2CallbackThatWaitsMovesOffTheLoop(t *testing.T) {
	for _, overTLS := range []bool{false, true} {
		t.Run(map[bool]string{false: "h2c", true: "h2"}[overTLS], func(t *testing.T) {
			var running, overlaps atomic.Int32
			ws := &WebSocket{
				OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
					if strings.HasPrefix(string(data), "sleep") {
						if running.Add(1) > 1 {
							overlaps.Add(1)
						}
						time.Sleep(300 * time.Millisecond)
						running.Add(-1)
					}
					ws.Send(typ, data)
				},
			}
			s := h2wsAutoServer(t, ws, overTLS)
			a, b := dialH2WS(t, s, overTLS), dialH2WS(t, s, overTLS)
			slow, fast, other := a.open("/ws", "websocket"), a.open("/ws", "websocket"), b.open("/ws", "websocket")
			for _, st := range []*h2wsStream{slow, fast, other} {
				if st.answered() != 200 {
					t.Fatalf("answered %d", st.status)
				}
			}
			fast.send(websocket.OpText, "warm")
			fast.expect(websocket.EventMessage, websocket.OpText, 0, "warm")
			other.send(websocket.OpText, "warm")
			other.expect(websocket.EventMessage, websocket.OpText, 0, "warm")
			baseline := runtime.NumGoroutine()

			var batch []byte
			for i := range 3 {
				batch, _ = slow.eng.AppendMessage(batch, websocket.OpText, fmt.Appendf(nil, "sleep %d", i))
			}
			slow.sendRaw(batch)
			waitMoved(t, s, 1)
			for i := range 3 { // held while the callback is off the loop
				slow.send(websocket.OpText, fmt.Sprint("after ", i))
			}
			var worst time.Duration
			began := time.Now()
			for i := range 10 {
				for _, st := range []*h2wsStream{fast, other} {
					msg := fmt.Sprint("fast ", i)
					t0 := time.Now()
					st.send(websocket.OpBinary, msg)
					st.expect(websocket.EventMessage, websocket.OpBinary, 0, msg)
					worst = max(worst, time.Since(t0))
				}
			}
			t.Logf("20 echoes beside the sleeper in %v, the slowest %v", time.Since(began), worst)
			if worst >= 250*time.Millisecond {
				t.Errorf("an echo beside a waiting callback took %v: the loop waited with it", worst)
			}
			for i := range 3 {
				slow.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprint("sleep ", i))
			}
			for i := range 3 {
				slow.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprint("after ", i))
			}
			if n := overlaps.Load(); n != 0 {
				t.Errorf("%d callbacks of one stream ran while another of it did", n)
			}
			// Back on the loop: it echoes, and the engine answers pings.
			slow.send(websocket.OpBinary, "back")
			slow.expect(websocket.EventMessage, websocket.OpBinary, 0, "back")
			slow.sendRaw(slow.eng.AppendPing(nil, []byte("ping")))
			slow.expect(websocket.EventPong, 0, 0, "ping")
			waitGoroutines(t, baseline)
		})
	}
}

// TestWebSocketOverH2MovedCallbacksOfOneStreamNeverOverlap: a stream
// whose every callback waits gets them one at a time, in order, while its
// messages keep arriving; then it closes as usual.
func TestWebSocketOverH2MovedCallbacksOfOneStreamNeverOverlap(t *testing.T) {
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
	s := h2wsAutoServer(t, ws, false)
	c := dialH2WS(t, s, false)
	st := c.open("/ws", "websocket")
	st.answered()
	const n = 15
	for i := range n {
		st.send(websocket.OpText, fmt.Sprint(i))
		if i%4 == 0 {
			time.Sleep(5 * time.Millisecond) // some arrive while one waits
		}
	}
	for i := range n {
		st.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprint(i))
	}
	st.sendRaw(st.eng.AppendClose(nil, 4002, "done"))
	st.expect(websocket.EventClose, 0, 4002, "") // the engine's reply: the code alone
	c.wait(5*time.Second, "END_STREAM after the close handshake", func() bool { return st.ended || st.reset })
	if got := overlaps.Load(); got != 0 {
		t.Errorf("%d callbacks of one stream ran while another of it did", got)
	}
	if s.Stats().MovedOff == 0 {
		t.Error("no callback was moved off the loop")
	}
}

// TestWebSocketOverH2SendAndCloseWhileACallbackIsOff: while a stream's
// callback waits off the loop, another goroutine's Send and Close on it
// succeed; what they queued goes out, in order, once the callback is back.
func TestWebSocketOverH2SendAndCloseWhileACallbackIsOff(t *testing.T) {
	entered, release := make(chan *WSConn, 1), make(chan struct{})
	closed := make(chan int, 2) // st and other at the end
	ws := &WebSocket{
		OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
			if string(data) == "wait" {
				entered <- ws
				<-release
			}
			ws.Send(typ, data)
		},
		OnClose: func(_ *WSConn, code int, _ string) { closed <- code },
	}
	s := h2wsAutoServer(t, ws, false)
	unblock := releaser(t, release)
	c := dialH2WS(t, s, false)
	st, other := c.open("/ws", "websocket"), c.open("/ws", "websocket")
	st.answered()
	other.answered()
	st.send(websocket.OpText, "wait")
	conn := <-entered
	waitMoved(t, s, 1)
	if err := conn.SendText("from outside"); err != nil {
		t.Fatalf("Send while the callback is off the loop: %v", err)
	}
	if err := conn.Close(4001, "bye"); err != nil {
		t.Fatalf("Close while the callback is off the loop: %v", err)
	}
	other.send(websocket.OpText, "x")
	other.expect(websocket.EventMessage, websocket.OpText, 0, "x")
	unblock()
	st.expect(websocket.EventMessage, websocket.OpText, 0, "from outside")
	st.expect(websocket.EventClose, 0, 4001, "bye") // the callback's echo comes after Close: dropped
	select {
	case code := <-closed:
		if code != 4001 {
			t.Errorf("OnClose %d, want 4001 (the client's reply)", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnClose")
	}
	c.wait(5*time.Second, "END_STREAM", func() bool { return st.ended || st.reset })
}

// TestWebSocketOverH2StreamEndsWhileACallbackIsOff: a callback waits off
// the loop; the client resets its stream (or closes the connection)
// meanwhile. The connection's other stream goes on; when the callback
// returns, OnClose reports 1006 once, after it and never beside it; the
// WebSocket count and the goroutines return to where they were.
func TestWebSocketOverH2StreamEndsWhileACallbackIsOff(t *testing.T) {
	for _, how := range []string{"RST_STREAM", "connection closed"} {
		t.Run(how, func(t *testing.T) {
			var running, overlaps, closes atomic.Int32
			var blocked atomic.Pointer[WSConn]
			entered, release := make(chan struct{}, 1), make(chan struct{})
			closed := make(chan int, 2) // the blocked stream's OnClose
			ws := &WebSocket{
				OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
					if string(data) == "block" {
						blocked.Store(ws)
						running.Add(1)
						entered <- struct{}{}
						<-release
						ws.Send(typ, data) // the stream is gone: goes nowhere
						running.Add(-1)
						return
					}
					ws.Send(typ, data)
				},
				OnClose: func(ws *WSConn, code int, _ string) {
					if ws != blocked.Load() {
						return // another stream of the closed connection
					}
					if running.Load() != 0 {
						overlaps.Add(1)
					}
					closes.Add(1)
					closed <- code
				},
			}
			s := h2wsAutoServer(t, ws, false)
			unblock := releaser(t, release)
			c := dialH2WS(t, s, false)
			other := dialH2WS(t, s, false)
			st, beside := c.open("/ws", "websocket"), c.open("/ws", "websocket")
			far := other.open("/ws", "websocket")
			for _, x := range []*h2wsStream{st, beside, far} {
				x.answered()
			}
			baseline := runtime.NumGoroutine()
			st.send(websocket.OpText, "block")
			<-entered
			waitMoved(t, s, 1)
			st.send(websocket.OpText, "held") // held for the callback's return
			if how == "RST_STREAM" {
				c.write(http2.AppendRSTStream(nil, st.id, http2.ErrCodeCancel))
				beside.send(websocket.OpText, "beside")
				beside.expect(websocket.EventMessage, websocket.OpText, 0, "beside")
			} else {
				c.nc.Close()
			}
			far.send(websocket.OpText, "far")
			far.expect(websocket.EventMessage, websocket.OpText, 0, "far")
			select {
			case code := <-closed:
				t.Fatalf("OnClose (%d) while the callback was still running", code)
			case <-time.After(50 * time.Millisecond):
			}
			unblock()
			select {
			case code := <-closed:
				if code != websocket.CloseAbnormal {
					t.Errorf("OnClose %d, want 1006", code)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no OnClose after the callback returned")
			}
			time.Sleep(50 * time.Millisecond) // a second OnClose would come now
			if n := closes.Load(); n != 1 {
				t.Errorf("%d OnClose calls, want 1", n)
			}
			if n := overlaps.Load(); n != 0 {
				t.Errorf("OnClose ran beside the stream's OnMessage %d times", n)
			}
			wantOpen := int64(1) // far
			if how == "RST_STREAM" {
				wantOpen = 2 // and beside
				beside.send(websocket.OpText, "still")
				beside.expect(websocket.EventMessage, websocket.OpText, 0, "still")
			}
			if got := s.Stats().WebSockets; got != wantOpen {
				t.Errorf("%d WebSockets open, want %d", got, wantOpen)
			}
			waitGoroutines(t, baseline)
		})
	}
}
