//go:build linux

package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// keepAliveRound sends one request on every connection, then reads every
// response, from the calling goroutine alone (so that the test adds no
// goroutines while it counts the server's).
func keepAliveRound(t *testing.T, conns []net.Conn, readers []*bufio.Reader, req string) {
	t.Helper()
	for _, c := range conns {
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range readers {
		if resp, body := readResponse(t, r); resp.StatusCode != 200 || body == "" {
			t.Fatalf("got %d %q", resp.StatusCode, body)
		}
	}
}

func TestAutoGoroutinesFollowWaitingHandlersOnly(t *testing.T) {
	const loops, clients = 2, 64
	t.Run("fast handlers under keep-alive load add none", func(t *testing.T) {
		base := runtime.NumGoroutine()
		// A budget no fast handler outlives, even on a loaded machine
		// under the race detector: this is about where they run.
		s := start(t, hello, Config{Loops: loops, HandlerBudget: 50 * time.Millisecond, ErrorLog: discardLog()})
		conns, readers := make([]net.Conn, clients), make([]*bufio.Reader, clients)
		for i := range conns {
			conns[i], readers[i] = rawConn(t, s)
		}
		peak := 0
		for round := 0; round < 200; round++ {
			keepAliveRound(t, conns, readers, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			peak = max(peak, runtime.NumGoroutine()-base)
		}
		// The loops, Serve, the date clock and the watchdog.
		if limit := loops + 4; peak > limit {
			t.Errorf("the server ran %d goroutines, want at most %d (loops + 4)", peak, limit)
		}
		if st := s.Stats(); st.Workers > 2 || st.Requests < 200*clients {
			t.Errorf("stats %+v: want every request answered, on the loops", st)
		}
	})
	t.Run("handlers that wait get goroutines, and the loop goes on", func(t *testing.T) {
		const waiting = 20
		release := make(chan struct{})
		var entered atomic.Int32
		h := HandlerFunc(func(c *Ctx) {
			if string(c.Path()) == "/wait" {
				entered.Add(1)
				<-release
			}
			c.WriteString("done")
		})
		base := runtime.NumGoroutine()
		s := start(t, h, Config{Loops: 1, ErrorLog: discardLog()})
		var once sync.Once
		t.Cleanup(func() { once.Do(func() { close(release) }) })
		readers := make([]*bufio.Reader, waiting)
		for i := range readers {
			var c net.Conn
			c, readers[i] = rawConn(t, s)
			io.WriteString(c, "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
		}
		if !waitFor(10*time.Second, func() bool { return entered.Load() == waiting }) {
			t.Fatalf("%d of %d waiting requests reached the handler", entered.Load(), waiting)
		}
		if got := runtime.NumGoroutine() - base; got < waiting {
			t.Errorf("%d goroutines for %d waiting handlers", got, waiting)
		}
		if st := s.Stats(); st.MovedOff < 1 {
			t.Errorf("stats %+v: no handler was moved off the loop", st)
		}
		// The loop they started on still serves.
		if resp, body := exchange(t, s, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || body != "done" {
			t.Fatalf("a fast request got %d %q beside waiting ones", resp.StatusCode, body)
		}
		once.Do(func() { close(release) })
		for _, r := range readers {
			if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "done" {
				t.Errorf("a waiting request got %d %q", resp.StatusCode, body)
			}
		}
	})
}

func TestAutoLearnsRoutesThatWait(t *testing.T) {
	if routeOf([]byte("/slow")) == routeOf([]byte("/fast")) {
		t.Fatal("the test's routes share a slot")
	}
	var srv atomic.Pointer[Server]
	var waits atomic.Int64
	waits.Store(strikesToLearn)
	onWorker := make(chan bool, 1)
	h := HandlerFunc(func(c *Ctx) {
		worker := c.w != nil // a worker's site gives the Ctx a sink; a loop's does not
		if string(c.Path()) == "/slow" {
			if n := waits.Add(-1); n >= 0 {
				// Wait until the watchdog has moved this handler off its loop
				// (bounded: a handler that is never moved fails the test
				// below instead of hanging it).
				for end := time.Now().Add(5 * time.Second); srv.Load().Stats().MovedOff < strikesToLearn-n && time.Now().Before(end); {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(10 * DefaultHandlerBudget) // and go on waiting: not a blip
			}
		}
		onWorker <- worker
		c.WriteString("ok")
	})
	s := &Server{Handler: h, Config: Config{Loops: 1, ErrorLog: discardLog()}}
	srv.Store(s)
	serveForTest(t, s)
	get := func(path string) bool {
		t.Helper()
		// A connection of its own: a connection whose handler was moved
		// stays with that goroutine while its client sends more, so a
		// request on it could start on a worker, not on the loop.
		c, r := rawConn(t, s)
		defer c.Close()
		io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("%s got %d %q", path, resp.StatusCode, body)
		}
		return <-onWorker
	}
	for i := 0; i < strikesToLearn; i++ {
		if get("/slow") {
			t.Fatalf("request %d of a route ran on a worker, want its loop", i+1)
		}
	}
	// Learned: the next requests of the route go to workers up front.
	for i := 0; i < firstProbe; i++ {
		if !get("/slow") {
			t.Fatalf("request %d after the route waited ran on the loop, want a worker", i+1)
		}
	}
	// The route is tried on the loop again now and then.
	probed := false
	for i := 0; i < 4*maxProbe && !probed; i++ {
		probed = !get("/slow")
	}
	if !probed {
		t.Error("the route was never tried on its loop again")
	}
	fastOnLoop := false
	for i := 0; i < 2*firstProbe+1; i++ {
		fastOnLoop = fastOnLoop || !get("/fast")
	}
	if !fastOnLoop {
		t.Error("a route that never waited did not run on its loop")
	}
}

func TestRouteTableDecays(t *testing.T) {
	var rt routeTable
	r := routeOf([]byte("/x"))
	rt.moved(r) // once: maybe held up
	if rt.waits(r) {
		t.Fatal("a route goes to workers after one handler outlived its budget")
	}
	rt.quick(r)
	rt.moved(r) // not in a row
	if rt.waits(r) {
		t.Fatal("a route goes to workers after two waits with a quick one between")
	}
	rt.moved(r) // in a row: learned
	sent := 0
	for rt.waits(r) {
		sent++
	}
	if sent != firstProbe {
		t.Fatalf("%d requests to workers after one wait, want %d", sent, firstProbe)
	}
	rt.blip(r) // it returned at once: held up, not waiting
	if rt.waits(r) {
		t.Fatal("a route whose handler was only held up still goes to workers")
	}
	rt.moved(r)
	rt.moved(r)
	for rt.waits(r) {
	}
	rt.moved(r) // the probe waited too
	if rt.slot[r].every != 2*firstProbe {
		t.Fatalf("interval %d after a second wait, want %d", rt.slot[r].every, 2*firstProbe)
	}
	for i := 0; i < 16 && rt.slot[r].every > 0; i++ {
		for rt.waits(r) {
		}
		rt.quick(r) // the probe returned in time
	}
	if rt.slot[r].every != 0 || rt.waits(r) {
		t.Fatalf("the route still goes to workers after its probes returned in time: %+v", rt.slot[r])
	}
}

func TestMoveViewsFollowsACopy(t *testing.T) {
	s, ctx := inMemory(t, hello)
	const req = "POST /p/q?a=1 HTTP/1.1\r\nHost: h\r\nX-K: v\r\nContent-Length: 4\r\n\r\nbody"
	from := []byte(req)
	var rd reading
	if o, _, _ := s.nextRequest(from, ctx, &rd); o != gotRequest {
		t.Fatalf("outcome %v", o)
	}
	to := append([]byte(nil), from...)
	ctx.moveViews(from, to)
	for i := range from {
		from[i] = '#'
	}
	got := fmt.Sprintf("%s %s %s %s %s %s %q", ctx.Method(), ctx.Path(), ctx.Query(), ctx.Host(), ctx.Header("X-K"), ctx.Body(), ctx.rawHead[:4])
	if want := `POST /p/q a=1 h v body "POST"`; got != want {
		t.Errorf("after the move: %s, want %s", got, want)
	}
}

func TestNativeBodies(t *testing.T) {
	h := HandlerFunc(func(c *Ctx) {
		switch string(c.Path()) {
		case "/whole":
			c.Write(c.Body())
		case "/part":
			p := make([]byte, 3)
			n, _ := io.ReadFull(c.BodyReader(), p)
			c.Write(p[:n])
		default:
			c.WriteString("ok")
		}
	})
	for _, mode := range []Mode{Auto, Pooled, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := start(t, h, Config{Mode: mode, Loops: 1, ErrorLog: discardLog()})
			tests := []struct{ path, want string }{{"/whole", "0123456789"}, {"/part", "012"}}
			for _, tt := range tests {
				c, r := rawConn(t, s)
				// The body in two parts: the handler may start before the second.
				io.WriteString(c, "POST "+tt.path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234")
				time.Sleep(20 * time.Millisecond)
				io.WriteString(c, "56789GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
				if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != tt.want {
					t.Errorf("%s got %d %q, want %q", tt.path, resp.StatusCode, body, tt.want)
				}
				if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "ok" {
					t.Errorf("the request after %s got %d %q", tt.path, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestAnUploadFloodLeavesOthersServed: clients sending endless bodies to a
// native handler that reads a little of each cost the server a bounded
// number of bytes per connection, and a keep-alive client is served
// meanwhile.
func TestAnUploadFloodLeavesOthersServed(t *testing.T) {
	const attackers, requests = 50, 100
	h := HandlerFunc(func(c *Ctx) {
		if string(c.Path()) == "/upload" {
			io.CopyN(io.Discard, c.BodyReader(), 1024)
		}
		c.WriteString("ok")
	})
	s := start(t, h, Config{Loops: 2, Mode: Auto, ErrorLog: discardLog()})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	chunk := fmt.Sprintf("%x\r\n%s\r\n", 16<<10, strings.Repeat("u", 16<<10))
	for i := 0; i < attackers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					return
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
				for {
					if _, err := io.WriteString(c, chunk); err != nil {
						break
					}
					select {
					case <-stop:
						c.Close()
						return
					default:
					}
				}
				c.Close()
			}
		}()
	}
	c, r := rawConn(t, s)
	c.SetDeadline(time.Now().Add(60 * time.Second)) // a shared machine is slow, not stuck
	for i := 0; i < requests; i++ {
		io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("request %d beside the flood got %d %q (stats %+v)", i, resp.StatusCode, body, s.Stats())
		}
	}
	close(stop)
	wg.Wait()
	st := s.Stats()
	// Per connection: the loop's first read, the part the handler read, the
	// bounded drain, one buffer of the stream's, and what a lingering close
	// reads and discards.
	perConn := int64(loopReadBuf + 1024 + maxDrain + 2*loopReadBuf + lingerBytes)
	if limit := st.Accepted*perConn + requests*64; st.BytesRead > limit {
		t.Errorf("the server read %d bytes from %d connections, more than %d", st.BytesRead, st.Accepted, limit)
	}
}

// TestAutoMovesAComputingHandlerOff: a handler that computes without
// waiting (it spins until the test has been answered on another
// connection of its loop) is moved off, even with one P, where only the
// runtime's preemption lets the watchdog run.
func TestAutoMovesAComputingHandlerOff(t *testing.T) {
	for _, procs := range []int{1, runtime.GOMAXPROCS(0)} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var othersServed atomic.Bool
			h := HandlerFunc(func(c *Ctx) {
				if string(c.Path()) == "/compute" {
					for end := time.Now().Add(10 * time.Second); !othersServed.Load() && time.Now().Before(end); {
					}
				}
				c.WriteString("ok")
			})
			s := start(t, h, Config{Loops: 1, ErrorLog: discardLog()})
			busy, br := rawConn(t, s)
			io.WriteString(busy, "GET /compute HTTP/1.1\r\nHost: x\r\n\r\n")
			if !waitFor(5*time.Second, func() bool { return s.Stats().InFlight == 1 }) {
				t.Fatal("the computing request never reached its handler")
			}
			if resp, body := exchange(t, s, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || body != "ok" {
				t.Fatalf("got %d %q beside a computing handler", resp.StatusCode, body)
			}
			if s.Stats().InFlight != 1 {
				t.Error("the computing handler ended before the other connection was served")
			}
			othersServed.Store(true)
			if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "ok" {
				t.Errorf("the computing request got %d %q", resp.StatusCode, body)
			}
		})
	}
}
