package metrics

import (
	"context"
	"net"
	"testing"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// BenchmarkLoopbackWithExporter is load's BenchmarkLoopback/keepalive as
// gust load --metrics-addr runs it: b.N requests over loopback to a
// server that answers from memory, with the Exporter updated once a
// second. allocs/op is the generator's per request, the run's set-up and
// the once-a-second updates spread over b.N (0 when b.N is large).
func BenchmarkLoopbackWithExporter(b *testing.B) {
	addr := cannedServer(b)
	exp := NewExporter(result.Shard{}, nil)
	b.ReportAllocs()
	res, err := load.Run(context.Background(), load.Config{URL: "http://" + addr + "/", Connections: 50, Requests: int64(b.N), Live: exp.Update})
	if err != nil {
		b.Fatal(err)
	}
	if res.Requests != int64(b.N) || res.ErrorCount() != 0 {
		b.Fatalf("requests %d errors %v, want %d and none", res.Requests, res.Errors, b.N)
	}
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if exp.snap.requests != res.Requests || exp.snap.latency.count != uint64(res.Requests) {
		b.Fatalf("exporter has %d requests, %d in the histogram; want the Result's %d", exp.snap.requests, exp.snap.latency.count, res.Requests)
	}
}

var cannedResponse = []byte("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHello, Go!")

// cannedServer answers each request head (found by its CRLFCRLF) with
// cannedResponse, allocating nothing per request.
func cannedServer(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf, out := make([]byte, 64<<10), make([]byte, 0, 64<<10)
				var tail uint32
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					out = out[:0]
					for _, ch := range buf[:n] {
						if tail = tail<<8 | uint32(ch); tail == 0x0d0a0d0a {
							out = append(out, cannedResponse...)
						}
					}
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}
