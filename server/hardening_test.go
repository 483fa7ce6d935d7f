package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// keepServing sends requests on n keep-alive connections until stop is
// closed, and returns a function that reports how many got 200 and the
// first failure.
func keepServing(t *testing.T, s *Server, n int, stop <-chan struct{}) func() (int64, error) {
	t.Helper()
	var ok atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		c, r := rawConn(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				io.WriteString(c, "GET /normal HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(r, nil)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					if err == nil && resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				ok.Add(1)
				time.Sleep(5 * time.Millisecond) // pacing: a steady client, not a flood
			}
		}()
	}
	return func() (int64, error) {
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return ok.Load(), firstErr
	}
}

// TestSlowHeadersAreCutAtReadHeaderTimeout opens thousands of connections
// that send their request head a byte at a time (slowloris) and checks
// that every one is closed once ReadHeaderTimeout has passed since its
// first byte, while normal clients keep being served. How much the slow
// connections cost normal clients' latency is a benchmark
// (BenchmarkSlowloris in cmd/gust), not a test.
func TestSlowHeadersAreCutAtReadHeaderTimeout(t *testing.T) {
	slow := 5000
	if testing.Short() {
		slow = 500
	}
	for _, mode := range []Mode{Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			const timeout = time.Second
			s := start(t, hello, Config{Mode: mode, ReadHeaderTimeout: timeout})
			stop := make(chan struct{})
			normal := keepServing(t, s, 4, stop)

			head := "GET /slow HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 1000)
			conns := make([]net.Conn, 0, slow)
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for i := 0; i < slow; i++ {
				c, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					t.Fatalf("dialing slow connection %d: %v", i, err)
				}
				conns = append(conns, c)
				c.Write([]byte(head[:1]))
			}
			lastDial := time.Now()
			// A byte per connection every 200 ms until every connection's
			// timeout has passed (measured from its first byte, which was
			// sent before lastDial).
			for sent := 1; time.Since(lastDial) < timeout+300*time.Millisecond; sent++ {
				time.Sleep(200 * time.Millisecond)
				for _, c := range conns {
					c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
					c.Write([]byte(head[sent : sent+1])) // fails once the server has closed it
				}
			}
			deadline := time.Now().Add(3 * time.Second)
			open := 0
			buf := make([]byte, 512)
			for _, c := range conns {
				c.SetReadDeadline(deadline)
				for {
					_, err := c.Read(buf)
					if err == nil {
						continue // a response (408) is fine; the close is what counts
					}
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						open++
					}
					break
				}
			}
			close(stop)
			served, err := normal()
			if open > 0 {
				t.Errorf("%d of %d slow connections were still open %v after their timeout", open, slow, time.Until(deadline)+3*time.Second)
			}
			if err != nil || served == 0 {
				t.Errorf("normal clients: %d served, error %v", served, err)
			}
			if !waitFor(2*time.Second, func() bool { return s.Stats().OpenConns <= 4 }) {
				t.Errorf("the server still counts %d open connections", s.Stats().OpenConns)
			}
		})
	}
}

// TestSlowReadersAreCutAtWriteTimeout checks that a client that never
// reads what it asked for is disconnected once WriteTimeout passes, and
// that the server lets go of the connection (and its buffers) then.
func TestSlowReadersAreCutAtWriteTimeout(t *testing.T) {
	big := make([]byte, 16<<20)
	bigHandler := HandlerFunc(func(c *Ctx) {
		if string(c.Path()) == "/big" {
			c.Write(big)
			return
		}
		c.WriteString("Hello, Go!")
	})
	pipelined := strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 1000)
	for _, mode := range []Mode{Pooled, Inline} {
		for _, tc := range []struct {
			name string
			send func(c net.Conn)
		}{
			{"one large response", func(c net.Conn) { io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n") }},
			{"pipelined requests", func(c net.Conn) {
				// Keep sending until the server stops reading (the write
				// blocks and times out) or closes the connection.
				c.SetWriteDeadline(time.Now().Add(5 * time.Second))
				for i := 0; i < 2000; i++ {
					if _, err := io.WriteString(c, pipelined); err != nil {
						return
					}
				}
			}},
		} {
			t.Run(mode.String()+"/"+tc.name, func(t *testing.T) {
				const timeout = 500 * time.Millisecond
				s := start(t, bigHandler, Config{Mode: mode, WriteTimeout: timeout})
				c, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.(*net.TCPConn).SetReadBuffer(4096) // keep the client's socket from soaking it all up
				began := time.Now()
				tc.send(c)
				if !waitFor(5*time.Second, func() bool { return s.Stats().OpenConns == 0 }) {
					t.Fatalf("the connection of a client that does not read is still open after %v", time.Since(began))
				}
				if st := s.Stats(); st.InFlight != 0 {
					t.Errorf("%d requests still in flight", st.InFlight)
				}
				// The server still serves others.
				if resp, body := exchange(t, s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || body != "Hello, Go!" {
					t.Errorf("after the slow reader: %d %q", resp.StatusCode, body)
				}
			})
		}
	}
}

// TestConnectionFloodBeyondMaxConns opens far more connections than
// MaxConns: the extra ones are closed at once, and the connections
// already open keep being served.
func TestConnectionFloodBeyondMaxConns(t *testing.T) {
	const maxConns, extra = 50, 1000
	s := start(t, hello, Config{MaxConns: maxConns})
	type client struct {
		c net.Conn
		r *bufio.Reader
	}
	var kept []client
	for i := 0; i < maxConns; i++ {
		c, r := rawConn(t, s)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d within MaxConns: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		kept = append(kept, client{c, r})
	}
	flood := make([]net.Conn, 0, extra)
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for i := 0; i < extra; i++ {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			continue // a full backlog may refuse some: also a way of saying no
		}
		flood = append(flood, c)
	}
	deadline := time.Now().Add(3 * time.Second)
	for i, c := range flood {
		c.SetReadDeadline(deadline)
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatalf("extra connection %d got a byte", i)
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("extra connection %d is still open", i)
		}
	}
	for i, k := range kept {
		io.WriteString(k.c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(k.r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("kept connection %d after the flood: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
	}
	if st := s.Stats(); st.Rejected < int64(len(flood)) || st.OpenConns != maxConns {
		t.Errorf("stats %+v: want %d rejected and %d open", st, len(flood), maxConns)
	}
}

// TestHugeHeadsAndBodiesAreRefusedUnread sends heads and bodies without
// end: the server answers 431 or 413 without reading them whole.
func TestHugeHeadsAndBodiesAreRefusedUnread(t *testing.T) {
	const maxHead, maxBody = 8 << 10, 1 << 20
	chunk := fmt.Sprintf("%x\r\n%s\r\n", 4096, strings.Repeat("b", 4096))
	tests := []struct {
		name   string
		start  string
		repeat string // sent over and over after start
		want   int
		// streamed is the answer where bodies are streamed (Auto and
		// Pooled): the handler, which reads none of it, answers, and the
		// connection closes once the bounded drain gives up; 0: want.
		streamed int
	}{
		{"a header line without end", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ", strings.Repeat("a", 4096), 431, 0},
		{"header fields without end", "GET / HTTP/1.1\r\nHost: x\r\n", "X-Many: aaaaaaaaaaaaaaaa\r\n", 431, 0},
		{"a request-target without end", "GET /", strings.Repeat("a", 4096), 414, 0},
		{"a method without end", "", strings.Repeat("G", 4096), 501, 0},
		{"a Content-Length beyond MaxBodyBytes", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n", strings.Repeat("b", 4096), 413, 0},
		{"a chunked body without end", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", chunk, 413, 200},
		{"chunk framing without data", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "0000000000000001;ext=" + strings.Repeat("e", 40) + "\r\nb\r\n", 413, 200},
	}
	for _, mode := range []Mode{Auto, Pooled, Inline} {
		for _, tt := range tests {
			t.Run(mode.String()+"/"+tt.name, func(t *testing.T) {
				want := tt.want
				if tt.streamed != 0 && mode != Inline {
					want = tt.streamed
				}
				s := start(t, hello, Config{Mode: mode, MaxHeaderBytes: maxHead, MaxBodyBytes: maxBody})
				c, r := rawConn(t, s)
				go func() {
					// Up to 64 MB, far beyond both limits; stops when the
					// server closes the connection.
					c.SetWriteDeadline(time.Now().Add(5 * time.Second))
					if _, err := io.WriteString(c, tt.start); err != nil {
						return
					}
					for sent := 0; sent < 64<<20; sent += len(tt.repeat) {
						if _, err := io.WriteString(c, tt.repeat); err != nil {
							return
						}
					}
				}()
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("no response: %v", err)
				}
				if resp.StatusCode != want || resp.StatusCode != 200 && !resp.Close {
					t.Errorf("got %d (close %v), want %d and a close", resp.StatusCode, resp.Close, want)
				}
				if !waitFor(5*time.Second, func() bool { return s.Stats().OpenConns == 0 }) {
					t.Error("the connection stayed open")
				}
				// What was read is bounded by the limits (raw chunk framing
				// may take twice the body limit) plus one read buffer, and
				// what the lingering close after the error reads and
				// discards so that the client can read the response
				// (RFC 9112 section 9.6).
				bound := int64(2*maxBody + maxHead + 64<<10 + lingerBytes) // 64 KiB: the loop's read buffer
				if got := s.Stats().BytesRead; got > bound {
					t.Errorf("the server read %d bytes, more than %d", got, bound)
				}
			})
		}
	}
}
