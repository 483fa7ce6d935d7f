package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// tracedClient sends requests one at a time on keep-alive connections
// (a new one when the server asks to close) until the server stops
// accepting, and counts the complete responses and the responses that
// broke off after their first byte.
type tracedClient struct {
	complete  atomic.Int64
	truncated atomic.Int64
}

func (tc *tracedClient) run(addr string, until time.Time) {
	for time.Now().Before(until) {
		raw, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return // the listener is closed: the server is shutting down
		}
		c := &countingConn{Conn: raw}
		r := bufio.NewReader(c)
		for time.Now().Before(until) {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			before := c.n.Load()
			if _, err := io.WriteString(c, "GET /traced HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				break
			}
			resp, err := http.ReadResponse(r, nil)
			if err == nil {
				var body []byte
				body, err = io.ReadAll(resp.Body)
				if err == nil && string(body) != "Hello, Go!" {
					err = errors.New("wrong body")
				}
			}
			if err != nil {
				if c.n.Load() > before {
					tc.truncated.Add(1)
				}
				break
			}
			tc.complete.Add(1)
			if resp.Close {
				break
			}
		}
		raw.Close()
	}
}

// TestShutdownUnderLoad shuts the server down while gust load runs flat
// out with keep-alive: every request the handler saw must reach its
// client whole (no truncated responses, no resets mid-response), and
// Shutdown must return within its deadline.
func TestShutdownUnderLoad(t *testing.T) {
	for _, mode := range []Mode{Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			var handled, loaded atomic.Int64
			h := HandlerFunc(func(c *Ctx) {
				if string(c.Path()) == "/traced" {
					handled.Add(1)
				} else {
					loaded.Add(1)
				}
				c.WriteString("Hello, Go!")
			})
			s := &Server{Handler: h, Config: Config{Mode: mode, ErrorLog: discardLog()}}
			if err := s.Listen("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			serveErr := make(chan error, 1)
			go func() { serveErr <- s.Serve() }()
			addr := s.Addr().String()

			loadCtx, stopLoad := context.WithCancel(context.Background())
			defer stopLoad()
			type outcome struct {
				res *result.Result
				err error
			}
			loadDone := make(chan outcome, 1)
			go func() {
				res, err := load.Run(loadCtx, load.Config{
					URL: "http://" + addr + "/", Connections: 64, Duration: 10 * time.Second,
					Timeout: 2 * time.Second, Loops: 1,
				})
				loadDone <- outcome{res, err}
			}()
			var traced tracedClient
			var wg sync.WaitGroup
			until := time.Now().Add(10 * time.Second)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() { defer wg.Done(); traced.run(addr, until) }()
			}

			// Shut down once the load's 64 connections and the 8 traced
			// clients are all in, and each has been served a request or
			// so (on average): a run under way, not one starting.
			if !waitFor(5*time.Second, func() bool {
				return s.Stats().Accepted >= 64+8 && handled.Load() >= 8 && loaded.Load() >= 64
			}) {
				t.Errorf("the load was not under way before the shutdown: %+v, %d traced and %d load requests handled", s.Stats(), handled.Load(), loaded.Load())
			}
			const grace = 5 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), grace)
			defer cancel()
			began := time.Now()
			err := s.Shutdown(ctx)
			took := time.Since(began)
			if err != nil || took >= grace {
				t.Errorf("Shutdown returned %v after %v (deadline %v)", err, took, grace)
			}
			if err := <-serveErr; err != ErrServerClosed {
				t.Errorf("Serve returned %v", err)
			}
			wg.Wait()
			stopLoad()
			out := <-loadDone

			if n := traced.truncated.Load(); n > 0 {
				t.Errorf("%d responses were cut off after their first byte", n)
			}
			if got, want := traced.complete.Load(), handled.Load(); got != want || want == 0 {
				t.Errorf("the clients received %d complete responses; the handler served %d", got, want)
			}
			if out.err != nil {
				t.Fatalf("gust load: %v", out.err)
			}
			if out.res.Requests == 0 || out.res.Errors[result.ErrProtocol] != 0 {
				t.Errorf("gust load: %d responses, %d protocol errors (%v)", out.res.Requests, out.res.Errors[result.ErrProtocol], out.res.Errors)
			}
			t.Logf("shutdown took %v; traced %d; load %d responses, errors %v", took, traced.complete.Load(), out.res.Requests, out.res.Errors)
		})
	}
}
