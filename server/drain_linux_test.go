package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"testing"
	"time"
)

// TestDrainPace: Shutdown's steps choose connections by the time gone
// since the first, so that all are chosen within the spread even when
// steps come late; at least one a step; all at once for a negative spread
// or one shorter than a step.
func TestDrainPace(t *testing.T) {
	conns := func(n int) []*conn {
		s := make([]*conn, n+3) // holes, as byFD has
		for i := range n {
			s[i+1] = &conn{}
		}
		return s
	}
	const ms = int64(time.Millisecond)
	tests := []struct {
		open   int
		spread time.Duration
		chosen int
		at     int64 // since the first step
		want   int
	}{
		{0, 250 * time.Millisecond, 0, 0, 1},
		{10, 250 * time.Millisecond, 0, 0, 1}, // fewer than steps: one a step
		{100, 250 * time.Millisecond, 0, 0, 4},
		{101, 250 * time.Millisecond, 0, 0, 5}, // rounded up: done within the spread
		{100, 250 * time.Millisecond, 4, 10 * ms, 4},
		{100, 250 * time.Millisecond, 4, 50 * ms, 20},   // steps came late: it catches up
		{100, 250 * time.Millisecond, 60, 240 * ms, 40}, // the spread is over: all that are left
		{100, 250 * time.Millisecond, 100, 300 * ms, 1},
		{100, -1, 0, 0, 100},                   // at once
		{100, 5 * time.Millisecond, 0, 0, 100}, // less than a step: at once
	}
	for _, tt := range tests {
		var p drainPace
		p.start(conns(tt.open), 1000*ms)
		p.chosen = tt.chosen
		if got := p.due(1000*ms+tt.at, tt.spread); got != tt.want {
			t.Errorf("%d open, %d chosen, %d ms in, spread %s: due %d, want %d", tt.open, tt.chosen, tt.at/ms, tt.spread, got, tt.want)
		}
	}
}

// Shutdown closes idle keep-alive connections over Config.DrainSpread, a
// share every step, not all in one instant; with a negative spread, all
// at once.
func TestShutdownSpreadsTheCloses(t *testing.T) {
	for _, tt := range []struct {
		spread     time.Duration
		minSpan    time.Duration
		maxSpan    time.Duration
		whatItSays string
	}{
		{300 * time.Millisecond, 150 * time.Millisecond, 3 * time.Second, "spread over the drain"},
		{-1, 0, 140 * time.Millisecond, "at once"}, // under the spread's least
	} {
		s := &Server{Handler: HandlerFunc(func(c *Ctx) { c.WriteString("ok") }), Config: Config{Loops: 1, DrainSpread: tt.spread}}
		if err := s.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- s.Serve() }()
		const n = 60
		closedAt := make(chan time.Time, n)
		for range n {
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// One request, so that the connection is no longer fresh.
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			buf := make([]byte, 512)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Read(buf); err != nil {
				t.Fatal(err)
			}
			go func() {
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				io.Copy(io.Discard, c)
				closedAt <- time.Now()
			}()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		<-errc
		var at []time.Time
		for range n {
			at = append(at, <-closedAt)
		}
		sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
		span := at[n-1].Sub(at[0])
		if span < tt.minSpan || span > tt.maxSpan {
			t.Errorf("DrainSpread %s: %d connections closed over %s; want %s (between %s and %s)",
				tt.spread, n, span, tt.whatItSays, tt.minSpan, tt.maxSpan)
		}
	}
}

// Busy keep-alive connections too end spread over Config.DrainSpread:
// a response says Connection: close only once the spread is over, so
// that clients sending request after request do not all reconnect (to a
// successor, in an upgrade) at their next response, in the same instant.
func TestShutdownSpreadsBusyConnections(t *testing.T) {
	for _, mode := range []Mode{Auto, Pooled} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) { testShutdownSpreadsBusy(t, mode) })
	}
}

func testShutdownSpreadsBusy(t *testing.T, mode Mode) {
	const spread = 400 * time.Millisecond
	s := &Server{Handler: HandlerFunc(func(c *Ctx) { c.WriteString("ok") }), Config: Config{Loops: 1, DrainSpread: spread, Mode: mode}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	const n = 40
	type end struct {
		at     time.Time
		served int
		err    error
	}
	ends := make(chan end, n)
	started := make(chan struct{}, n)
	for range n {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			// Request after request, until the server says
			// Connection: close or closes the connection between two.
			br := bufio.NewReader(c)
			served := 0
			for {
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
					ends <- end{time.Now(), served, nil}
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					ends <- end{time.Now(), served, nil} // closed between two requests
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if served++; served == 1 {
					started <- struct{}{}
				}
				if resp.StatusCode != 200 {
					ends <- end{time.Now(), served, fmt.Errorf("status %d", resp.StatusCode)}
					return
				}
				if resp.Close {
					ends <- end{time.Now(), served, nil}
					return
				}
			}
		}()
	}
	for range n {
		<-started
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	begun := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-errc
	var at []time.Time
	for range n {
		e := <-ends
		if e.err != nil {
			t.Error(e.err)
		}
		at = append(at, e.at)
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	// Half the connections still served a quarter of the spread in.
	if mid := at[n/2].Sub(begun); mid < spread/4 {
		t.Errorf("half the busy connections ended %s after Shutdown began; want them spread over DrainSpread %s", mid, spread)
	}
}
