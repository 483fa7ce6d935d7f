//go:build linux

package server

import (
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

// h2wsEcho is one WebSocket over h2c (RFC 8441) to an echo server on one
// loop, with a client that allocates nothing per message: the DATA frame
// of a masked 64-byte message made once, written raw, and the echo read
// through the client engine (which gives the server its window back).
type h2wsEcho struct {
	c     *h2wsConn
	st    *h2wsStream
	frame []byte
	buf   []byte
	in    []byte
	out   []byte
}

func newH2WSEcho(tb testing.TB, mode Mode) *h2wsEcho {
	s := serveForTest(tb, &Server{Handler: h2wsSetups(wsEcho())[0].h, Config: func() Config {
		cfg := h2wsConfig(mode, false)
		cfg.Loops = 1
		return cfg
	}()})
	c := dialH2WS(tb, s, false)
	st := c.open("/ws", "websocket")
	if st.answered() != 200 {
		tb.Fatalf("answered %d", st.status)
	}
	msg := websocket.AppendFrame(nil, websocket.OpBinary, true, false, make([]byte, 64), &[4]byte{1, 2, 3, 4})
	e := &h2wsEcho{c: c, st: st, frame: http2.AppendData(nil, st.id, msg, false), buf: make([]byte, 64<<10)}
	e.roundTrip(tb)
	return e
}

// roundTrip writes the message and reads until its 66-byte echo is in.
func (e *h2wsEcho) roundTrip(tb testing.TB) {
	c := e.c
	if _, err := c.nc.Write(e.frame); err != nil {
		tb.Fatal(err)
	}
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for got := 0; got < 2+64; {
		n, err := c.nc.Read(e.buf)
		if n == 0 {
			tb.Fatal(err)
		}
		e.in = append(e.in, e.buf[:n]...)
		out, used, err := c.cc.Feed(e.out[:0], e.in)
		if err != nil {
			tb.Fatal(err)
		}
		for _, ev := range c.cc.Events() {
			if ev.Kind == http2.EventData {
				got += len(ev.Data)
			}
		}
		e.in = e.in[:copy(e.in, e.in[used:])]
		e.out = out
		if len(out) > 0 {
			c.nc.Write(out)
		}
	}
}

// TestWebSocketOverH2EchoDoesNotAllocate holds a 64-byte echo on an
// HTTP/2 stream, server and client in this process, to no allocation per
// message.
func TestWebSocketOverH2EchoDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, mode := range []Mode{Inline, Auto} {
		e := newH2WSEcho(t, mode)
		allocs := testing.AllocsPerRun(2000, func() { e.roundTrip(t) })
		if allocs > 0.02 { // the date clock's ticker, now and then
			t.Errorf("%v: %.3f allocations per echoed message, want 0", mode, allocs)
		}
	}
}

// BenchmarkWebSocketOverH2Echo64 measures one 64-byte message and its echo
// on an h2c stream over loopback on one loop (the client's side included).
func BenchmarkWebSocketOverH2Echo64(b *testing.B) {
	for _, mode := range []Mode{Inline, Auto, Pooled} {
		b.Run(mode.String(), func(b *testing.B) {
			e := newH2WSEcho(b, mode)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.roundTrip(b)
			}
		})
	}
}
