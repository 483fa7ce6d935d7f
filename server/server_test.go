package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

var hello = HandlerFunc(func(c *Ctx) { c.WriteString("Hello, Go!") })

// start runs a server on a loopback port and stops it with the test.
func start(t testing.TB, h Handler, cfg Config) *Server {
	t.Helper()
	return serveForTest(t, &Server{Handler: h, Config: cfg})
}

// serveForTest listens on a free loopback port and serves s until the
// test ends, then checks that it shuts down cleanly.
func serveForTest(t testing.TB, s *Server) *Server {
	t.Helper()
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-errc; err != ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return s
}

func TestServesWithBothModes(t *testing.T) {
	for _, mode := range []Mode{Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := start(t, hello, Config{Mode: mode})
			url := "http://" + s.Addr().String() + "/"
			client := &http.Client{Timeout: 5 * time.Second}
			for i := 0; i < 20; i++ {
				resp, err := client.Get(url)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(body) != "Hello, Go!" {
					t.Fatalf("got %d %q", resp.StatusCode, body)
				}
				if resp.Header.Get("Date") == "" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
					t.Errorf("headers %v", resp.Header)
				}
			}
			if st := s.Stats(); st.Requests != 20 || st.Accepted != 1 {
				t.Errorf("stats %+v, want 20 requests on one keep-alive connection", st)
			}
		})
	}
}

func TestPipelinedRequestsAreAnsweredInOrder(t *testing.T) {
	for _, mode := range []Mode{Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := start(t, HandlerFunc(func(c *Ctx) { c.Write(c.Path()) }), Config{Mode: mode})
			conn, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var req strings.Builder
			for i := 0; i < 50; i++ {
				fmt.Fprintf(&req, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
			}
			conn.Write([]byte(req.String()))
			r := bufio.NewReader(conn)
			for i := 0; i < 50; i++ {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("response %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				if want := fmt.Sprintf("/%d", i); string(body) != want {
					t.Fatalf("response %d = %q, want %q", i, body, want)
				}
			}
		})
	}
}

func TestRequestsSplitAcrossReads(t *testing.T) {
	for _, mode := range []Mode{Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := start(t, HandlerFunc(func(c *Ctx) { c.Write(c.Path()) }), Config{Mode: mode})
			c, r := rawConn(t, s)
			parts := []string{"GET /a HTTP/1.1\r\nHo", "st: x\r\n\r\nGET /b HT", "TP/1.1\r\nHost: x\r\n\r\n", "GET /c HTTP/1.1\r\nHost: x\r\n\r\n"}
			want := []string{"/a", "/b", "/c"}
			got, sent := 0, 0
			for _, p := range parts {
				c.Write([]byte(p))
				sent += len(p)
				// Each part in a read of its own: the next goes once the
				// server has read this one.
				if !waitFor(5*time.Second, func() bool { return s.Stats().BytesRead >= int64(sent) }) {
					t.Fatalf("the server read %d of the %d bytes sent", s.Stats().BytesRead, sent)
				}
			}
			for ; got < len(want); got++ {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("response %d: %v", got, err)
				}
				body, _ := io.ReadAll(resp.Body)
				if string(body) != want[got] {
					t.Fatalf("response %d = %q, want %q", got, body, want[got])
				}
			}
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := r.ReadByte(); err == nil {
				t.Error("the server sent more than three responses")
			}
		})
	}
}

// TestLongPipelineIsServedWhole sends more pipelined requests in one write
// than a loop reads at once: every one must be answered.
func TestLongPipelineIsServedWhole(t *testing.T) {
	for _, mode := range []Mode{Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := start(t, hello, Config{Mode: mode})
			c, r := rawConn(t, s)
			const n = 4000 // about 108 KB of requests, more than the 64 KiB read buffer
			go c.Write([]byte(strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", n)))
			for i := 0; i < n; i++ {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("response %d of %d: %v", i, n, err)
				}
				io.Copy(io.Discard, resp.Body)
			}
		})
	}
}
