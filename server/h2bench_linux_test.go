//go:build linux

package server

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// BenchmarkH2Loopback measures one HTTP/2 request and its response on one
// h2c connection over loopback (the client's side included: it writes a
// prebuilt HEADERS frame and scans the answer's frame headers without
// allocating), for the native API in both modes and the adapter.
func BenchmarkH2Loopback(b *testing.B) {
	for _, setup := range h2Setups {
		b.Run(setup.name, func(b *testing.B) {
			s := start(b, setup.handler(), Config{Mode: setup.mode, H2C: true, Loops: 1})
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			fr := xhttp2.NewFramer(c, nil)
			io.WriteString(c, xhttp2.ClientPreface)
			fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 1 << 30})
			fr.WriteWindowUpdate(0, 1<<31-1-65535)
			var block []byte
			{
				var hb bufferWriter
				enc := hpack.NewEncoder(&hb)
				for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", "bench"}, {":path", "/"}} {
					enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1], Sensitive: true}) // never indexed: the same bytes every time
				}
				block = hb.b
			}
			req := make([]byte, 9+len(block))
			req[0], req[1], req[2] = byte(len(block)>>16), byte(len(block)>>8), byte(len(block))
			req[3], req[4] = 0x1, 0x1|0x4 // HEADERS, END_STREAM | END_HEADERS
			copy(req[9:], block)
			r := bufio.NewReaderSize(c, 64<<10)
			head := make([]byte, 9)
			id := uint32(1)
			round := func() {
				binary.BigEndian.PutUint32(req[5:9], id)
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := io.ReadFull(r, head); err != nil {
						b.Fatal(err)
					}
					n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
					if _, err := r.Discard(n); err != nil {
						b.Fatal(err)
					}
					sid := binary.BigEndian.Uint32(head[5:9]) & 0x7fffffff
					if (head[3] == 0x0 || head[3] == 0x1) && sid == id && head[4]&0x1 != 0 {
						break
					}
				}
				id += 2
			}
			round()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				round()
			}
		})
	}
}

type bufferWriter struct{ b []byte }

func (w *bufferWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
