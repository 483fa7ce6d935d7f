package server

import (
	"bufio"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLoopback measures one keep-alive request and its response over
// a loopback socket, through the engine's read, serve and write path (the
// client's side included), in every mode.
func BenchmarkLoopback(b *testing.B) {
	for _, mode := range []Mode{Inline, Pooled, Auto} {
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

// BenchmarkKeepAlive64 sends requests on 64 keep-alive connections at
// once, round after round, and reports the process's CPU time per request
// (client included: compare modes by ratio) beside the wall time. The
// auto rows with other budgets show what the watchdog costs.
func BenchmarkKeepAlive64(b *testing.B) {
	const conns = 64
	cases := []struct {
		name   string
		mode   Mode
		budget time.Duration
	}{
		{"inline", Inline, 0},
		{"pooled", Pooled, 0},
		{"auto", Auto, 0},
		{"auto-budget-50us", Auto, 50 * time.Microsecond},
		{"auto-budget-500us", Auto, 500 * time.Microsecond},
		{"auto-budget-1ms", Auto, time.Millisecond},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s := start(b, hello, Config{Mode: tc.mode, Loops: 1, HandlerBudget: tc.budget})
			req := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			cs, rs, resp := primedConns(b, s, conns, req)
			var before, after syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			b.ResetTimer()
			for done := 0; done < b.N; done += conns {
				for _, c := range cs {
					if _, err := c.Write(req); err != nil {
						b.Fatal(err)
					}
				}
				for _, r := range rs {
					if _, err := io.ReadFull(r, resp); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/req")
			b.ReportMetric(float64(s.Stats().Workers), "workers")
		})
	}
}

// BenchmarkCompute200us is BenchmarkKeepAlive64's rounds on 16
// connections against a handler that computes for 200 us without
// waiting, with a loop per P.
func BenchmarkCompute200us(b *testing.B) {
	const conns = 16
	h := HandlerFunc(func(c *Ctx) {
		for start := time.Now(); time.Since(start) < 200*time.Microsecond; {
		}
		c.WriteString("ok")
	})
	for _, mode := range []Mode{Inline, Pooled, Auto} {
		b.Run(mode.String(), func(b *testing.B) {
			s := start(b, h, Config{Mode: mode})
			req := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			cs, rs, resp := primedConns(b, s, conns, req)
			b.ResetTimer()
			for done := 0; done < b.N; done += conns {
				for _, c := range cs {
					c.Write(req)
				}
				for _, r := range rs {
					if _, err := io.ReadFull(r, resp); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(s.Stats().MovedOff), "moved-off")
		})
	}
}

// primedConns opens n keep-alive connections to s with no deadline, sends
// req on each and reads its response, and returns the connections, their
// readers and the response's bytes (what each later round reads again).
func primedConns(b *testing.B, s *Server, n int, req []byte) ([]net.Conn, []*bufio.Reader, []byte) {
	b.Helper()
	cs, rs := make([]net.Conn, n), make([]*bufio.Reader, n)
	var resp []byte
	for i := range cs {
		cs[i], rs[i] = rawConn(b, s)
		cs[i].SetDeadline(time.Time{})
		cs[i].Write(req)
		buf := make([]byte, 4096)
		k, err := rs[i].Read(buf)
		if err != nil {
			b.Fatal(err)
		}
		resp = buf[:k]
	}
	return cs, rs, resp
}
