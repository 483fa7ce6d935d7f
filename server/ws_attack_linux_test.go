//go:build linux

package server

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/websocket"
)

// TestWebSocketAttacksEndAtTheirLimitsWhileOthersEcho sends each kind of
// bad input on its own connection while 1000 other connections keep
// echoing: each bad one gets the close code (or status) the RFC names,
// and every echoing connection goes on being answered.
func TestWebSocketAttacksEndAtTheirLimitsWhileOthersEcho(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 connections")
	}
	ws := wsEcho()
	ws.Deflate = true
	ws.MaxMessage = 64 << 10
	s := start(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) }), Config{Mode: Auto})

	const echoers, rounds = 1000, 20
	clients := make([]*wsClient, echoers)
	for i := range clients {
		clients[i] = dialWS(t, s, "/ws", "")
	}
	var echoed atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, echoers)
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// At least rounds each, and on until the attacks are over
			// (bounded: 10000 rounds).
			for r := 0; r < 10_000; r++ {
				msg := fmt.Sprintf("echo %d/%d", i, r)
				b, _ := c.eng.AppendMessage(nil, websocket.OpText, []byte(msg))
				if _, err := c.nc.Write(b); err != nil {
					errs <- err
					return
				}
				e, ok := c.next(10 * time.Second)
				if !ok || string(e.Payload) != msg {
					errs <- fmt.Errorf("connection %d round %d: got %q (ok %v)", i, r, e.Payload, ok)
					return
				}
				echoed.Add(1)
				if r+1 < rounds {
					time.Sleep(time.Millisecond) // pacing: an echo a millisecond beside the attacks
					continue
				}
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
		}()
	}

	attacks := []struct {
		name string
		// run sends the attack; it calls sent where the clock should
		// start if building the attack takes time of its own.
		run  func(t *testing.T, c *wsClient, sent func())
		code int
	}{
		{"a fragment flood past MaxMessage", func(t *testing.T, c *wsClient, sent func()) {
			key := &[4]byte{9, 8, 7, 6}
			var b []byte
			b = websocket.AppendFrame(b, websocket.OpBinary, false, false, []byte{1}, key)
			for range 70_000 {
				b = websocket.AppendFrame(b, websocket.OpContinuation, false, false, []byte{1}, key)
			}
			c.nc.Write(b) // the server may close before all of it is written
		}, websocket.CloseTooBig},
		{"a frame announcing 2^63-1 bytes", func(t *testing.T, c *wsClient, sent func()) {
			c.write([]byte{0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4})
		}, websocket.CloseTooBig},
		{"a decompression bomb", func(t *testing.T, c *wsClient, sent func()) {
			b, err := c.eng.AppendMessage(nil, websocket.OpBinary, make([]byte, 32<<20))
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 1<<20 {
				t.Fatalf("the bomb compressed to %d bytes", len(b))
			}
			// Compressing 32 MiB takes seconds under -race: the server's
			// limit is timed from the bomb's sending.
			sent()
			c.nc.Write(b)
		}, websocket.CloseTooBig},
		{"invalid UTF-8 in a text message", func(t *testing.T, c *wsClient, sent func()) {
			c.write(websocket.AppendFrame(nil, websocket.OpText, true, false, []byte("ok \xc3\x28"), &[4]byte{1, 2, 3, 4}))
		}, websocket.CloseInvalidPayload},
		{"an unmasked client frame", func(t *testing.T, c *wsClient, sent func()) {
			c.write(websocket.AppendFrame(nil, websocket.OpBinary, true, false, []byte("hi"), nil))
		}, websocket.CloseProtocolError},
		{"a ping flood read as it goes", func(t *testing.T, c *wsClient, sent func()) {
			const pings = 20_000
			go func() {
				var b []byte
				for range pings {
					b = c.eng.AppendPing(b, []byte("p"))
				}
				c.nc.Write(b)
				c.nc.Write(c.eng.AppendClose(nil, websocket.CloseNormal, ""))
			}()
			for n := 0; n < pings; n++ {
				e, ok := c.next(10 * time.Second)
				if !ok || e.Kind != websocket.EventPong {
					t.Fatalf("pong %d: %v (ok %v)", n, e.Kind, ok)
				}
			}
		}, websocket.CloseNormal},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			c := dialWS(t, s, "/ws", "Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; server_no_context_takeover\r\n")
			start := time.Now()
			a.run(t, c, func() { start = time.Now() })
			c.expectClose(a.code)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("closed after %v", d)
			}
		})
	}
	t.Run("a missing key", func(t *testing.T) {
		resp, body := exchange(t, s, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
		if resp.StatusCode != 400 || !strings.Contains(body, "Sec-WebSocket-Key") {
			t.Errorf("got %d %q", resp.StatusCode, body)
		}
	})
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := echoed.Load(); got < echoers*rounds {
		t.Errorf("%d echoes answered, want at least %d", got, echoers*rounds)
	}
	if st := s.Stats(); st.WebSockets != echoers {
		t.Errorf("%d WebSockets open at the end, want the %d echoers", st.WebSockets, echoers)
	}
}
