package server

import (
	"bufio"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkMixed runs 64 keep-alive clients, each sending one request at
// a time, where every 20th request goes to /slow, whose handler waits
// 5 ms (or, for the baseline, none does), and reports the fast requests'
// p99 latency beside the wall time per request.
func BenchmarkMixed(b *testing.B) {
	const clients = 64
	h := HandlerFunc(func(c *Ctx) {
		if string(c.Path()) == "/slow" {
			time.Sleep(5 * time.Millisecond)
		}
		c.WriteString("ok")
	})
	cases := []struct {
		name  string
		mode  Mode
		mixed bool
	}{
		{"inline-fast-only", Inline, false},
		{"auto-fast-only", Auto, false},
		{"auto-mixed", Auto, true},
		{"pooled-fast-only", Pooled, false},
		{"pooled-mixed", Pooled, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s := start(b, h, Config{Mode: tc.mode, Loops: 1})
			fast := make([][]time.Duration, clients)
			var wg sync.WaitGroup
			b.ResetTimer()
			for i := 0; i < clients; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := net.Dial("tcp", s.Addr().String())
					if err != nil {
						b.Error(err)
						return
					}
					defer c.Close()
					r := bufio.NewReader(c)
					resp := make([]byte, 0, 256)
					for n := i; n < b.N; n += clients {
						req := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
						slow := tc.mixed && n%20 == 0
						if slow {
							req = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
						}
						t0 := time.Now()
						if _, err := io.WriteString(c, req); err != nil {
							b.Error(err)
							return
						}
						if err := readOne(r, &resp); err != nil {
							b.Error(err)
							return
						}
						if !slow {
							fast[i] = append(fast[i], time.Since(t0))
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			all := slices.Concat(fast...)
			slices.Sort(all)
			if len(all) > 0 {
				b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "fast-p99-us")
			}
		})
	}
}

// readOne reads one response of the benchmark's server (a Content-Length
// body) from r.
func readOne(r *bufio.Reader, buf *[]byte) error {
	length := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		if len(line) > 16 && string(line[:16]) == "Content-Length: " {
			for _, d := range line[16:] {
				if d >= '0' && d <= '9' {
					length = length*10 + int(d-'0')
				}
			}
		}
	}
	*buf = (*buf)[:0]
	_, err := r.Discard(length)
	return err
}
