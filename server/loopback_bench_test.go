package server

import (
	"io"
	"testing"
)

// BenchmarkLoopback measures one keep-alive request and its response over
// a loopback socket, through the engine's read, serve and write path (the
// client's side included), in both modes.
func BenchmarkLoopback(b *testing.B) {
	for _, mode := range []Mode{Inline, Pooled} {
		b.Run(mode.String(), func(b *testing.B) {
			s := start(b, hello, Config{Mode: mode, Loops: 1})
			c, r := rawConn(b, s)
			req := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			// Every response has the same length: learn it from the first.
			c.Write(req)
			first := make([]byte, 4096)
			n, err := r.Read(first)
			if err != nil {
				b.Fatal(err)
			}
			resp := first[:n]
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(r, resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
