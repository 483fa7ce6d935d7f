//go:build linux

package server

import (
	"io"
	"testing"

	"github.com/gust-http/gust/internal/websocket"
)

// wsEchoLoopback opens one WebSocket to an echo server on one loop and
// returns a masked 64-byte binary frame and a buffer its echo fills.
func wsEchoLoopback(tb testing.TB, mode Mode) (*wsClient, []byte, []byte) {
	s := start(tb, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(wsEcho()) }), Config{Mode: mode, Loops: 1})
	c := dialWS(tb, s, "/ws", "")
	frame := websocket.AppendFrame(nil, websocket.OpBinary, true, false, make([]byte, 64), &[4]byte{1, 2, 3, 4})
	echo := make([]byte, 2+64) // the server's frame: unmasked
	c.write(frame)
	if _, err := io.ReadFull(c.r, echo); err != nil {
		tb.Fatal(err)
	}
	return c, frame, echo
}

// TestWebSocketEchoDoesNotAllocate holds a 64-byte echo, server and
// client in this process, to no allocation per message.
func TestWebSocketEchoDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, mode := range []Mode{Inline, Auto} {
		c, frame, echo := wsEchoLoopback(t, mode)
		allocs := testing.AllocsPerRun(2000, func() {
			c.write(frame)
			if _, err := io.ReadFull(c.r, echo); err != nil {
				t.Fatal(err)
			}
		})
		// The process's other goroutines (the date clock's ticker) may
		// allocate now and then: less than one in 50 messages.
		if allocs > 0.02 {
			t.Errorf("%v: %.3f allocations per echoed message, want 0", mode, allocs)
		}
	}
}

// BenchmarkWebSocketEcho64 measures one 64-byte message and its echo over
// loopback on one loop (the client's side included).
func BenchmarkWebSocketEcho64(b *testing.B) {
	for _, mode := range []Mode{Inline, Auto, Pooled} {
		b.Run(mode.String(), func(b *testing.B) {
			c, frame, echo := wsEchoLoopback(b, mode)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.write(frame)
				if _, err := io.ReadFull(c.r, echo); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
