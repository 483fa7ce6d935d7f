package websocket

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestAllocs pins the zero-allocation paths.
func TestAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts")
	}
	wire := cf(OpText, true, strings.Repeat("x", 64))
	buf := make([]byte, len(wire))
	var c Conn
	c.Init(Config{})
	if a := testing.AllocsPerRun(1000, func() {
		copy(buf, wire)
		c.Feed(nil, buf)
	}); a != 0 {
		t.Errorf("Feed of a 64-byte message: %v allocs", a)
	}
	dst := make([]byte, 0, 256)
	var cl Conn
	cl.Init(Config{Client: true})
	if a := testing.AllocsPerRun(1000, func() { dst, _ = cl.AppendMessage(dst[:0], OpText, buf[:64]) }); a != 0 {
		t.Errorf("AppendMessage: %v allocs", a)
	}
	key := []byte("dGhlIHNhbXBsZSBub25jZQ==")
	if a := testing.AllocsPerRun(1000, func() { dst = AcceptKey(dst[:0], key) }); a != 0 {
		t.Errorf("AcceptKey: %v allocs", a)
	}
}

// TestIdleMemory measures what an idle Conn holds: its struct, and the heap
// it keeps after exchanging messages (fragmented ones too) with Recycle
// called. With context takeover it measures the per-connection compressor
// and history window.
func TestIdleMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory measurement")
	}
	t.Logf("sizeof(Conn) = %d bytes", unsafe.Sizeof(Conn{}))
	msg := []byte(strings.Repeat("a message that compresses well. ", 40))
	cases := []struct {
		name  string
		p     *DeflateParams
		limit float64 // heap bytes per idle conn beyond the struct
	}{
		{"no deflate", nil, 64},
		{"deflate without context takeover", &DeflateParams{ServerNoContextTakeover: true, ClientNoContextTakeover: true}, 64},
		{"deflate, the client's context kept (history window only)", &DeflateParams{ServerNoContextTakeover: true}, 40 << 10},
		{"deflate with context takeover", &DeflateParams{}, 2 << 20},
		{"deflate with context takeover, 10-bit windows", &DeflateParams{ServerMaxWindowBits: 10, ClientMaxWindowBits: 10}, 2 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1000
			var cl Conn
			cl.Init(Config{Client: true, Deflate: tc.p})
			conns := make([]Conn, n)
			var wires [][]byte
			for range 3 {
				w, _ := cl.AppendMessage(nil, OpText, msg)
				wires = append(wires, w)
			}
			frag := cat(cf(OpText, false, "frag"), cf(OpContinuation, true, "ment"))
			before := heapInUse()
			for i := range conns {
				c := &conns[i]
				c.Init(Config{Deflate: tc.p})
				for _, w := range append(wires[:len(wires):len(wires)], frag) {
					c.Feed(nil, append([]byte(nil), w...))
				}
				c.AppendMessage(nil, OpText, msg)
				c.Recycle()
			}
			after := heapInUse()
			per := float64(int64(after)-int64(before)) / n
			t.Logf("%s: %.0f heap bytes per idle Conn beyond its %d-byte struct", tc.name, per, unsafe.Sizeof(Conn{}))
			if per > tc.limit {
				t.Errorf("%.0f bytes per idle Conn, want at most %.0f", per, tc.limit)
			}
			runtime.KeepAlive(conns)
			for i := range conns {
				conns[i].Release()
			}
		})
	}
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
