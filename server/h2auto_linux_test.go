//go:build linux

package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Answer is a response an h2Peer read: its status, its body, and how
// the stream ended.
type h2Answer struct {
	status string
	body   []byte
	ended  bool
	reset  bool // ended by RST_STREAM
	code   xhttp2.ErrCode
}

// decodeHeaders makes p's framer decode the server's header blocks (the
// HPACK state is the connection's, so every block must go through it).
func (p *h2Peer) decodeHeaders() *h2Peer {
	p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	return p
}

// answers reads frames until every stream in ids has ended (END_STREAM or
// RST_STREAM), or d passes, granting window as DATA arrives and
// acknowledging SETTINGS, from the calling goroutine alone.
func (p *h2Peer) answers(d time.Duration, ids ...uint32) (map[uint32]*h2Answer, error) {
	got := make(map[uint32]*h2Answer, len(ids))
	for _, id := range ids {
		got[id] = &h2Answer{}
	}
	left := len(ids)
	end := func(a *h2Answer) {
		if !a.ended {
			a.ended = true
			left--
		}
	}
	p.c.SetReadDeadline(time.Now().Add(d))
	for left > 0 {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return got, err
		}
		a := got[f.Header().StreamID]
		switch f := f.(type) {
		case *xhttp2.SettingsFrame:
			if !f.IsAck() {
				p.fr.WriteSettingsAck()
			}
		case *xhttp2.MetaHeadersFrame:
			if a != nil {
				if a.status == "" {
					a.status = f.PseudoValue("status")
				}
				if f.StreamEnded() {
					end(a)
				}
			}
		case *xhttp2.DataFrame:
			if n := f.Header().Length; n > 0 {
				p.fr.WriteWindowUpdate(0, n)
				if !f.StreamEnded() {
					p.fr.WriteWindowUpdate(f.StreamID, n)
				}
			}
			if a != nil {
				a.body = append(a.body, f.Data()...)
				if f.StreamEnded() {
					end(a)
				}
			}
		case *xhttp2.RSTStreamFrame:
			if a != nil {
				a.reset, a.code = true, f.ErrCode
				end(a)
			}
		}
	}
	return got, nil
}

// h2AutoAPIs are the two APIs a test runs in Auto mode, from one
// function of the path that answers a request (or blocks, or fails).
var h2AutoAPIs = []struct {
	name string
	wrap func(func(path string, flush func(), body io.Writer)) Handler
}{
	{"native", func(f func(string, func(), io.Writer)) Handler {
		return HandlerFunc(func(c *Ctx) { f(string(c.Path()), func() { c.Flush() }, c) })
	}},
	{"adapter", func(f func(string, func(), io.Writer)) Handler {
		return HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f(r.URL.Path, w.(http.Flusher).Flush, w)
		}))
	}},
}

func TestH2AutoGoroutinesStayFew(t *testing.T) {
	const loops, conns, streams, rounds = 2, 50, 10, 20
	for _, api := range h2AutoAPIs {
		t.Run(api.name+": fast streams run on the loops, with no goroutine of their own", func(t *testing.T) {
			h := api.wrap(func(_ string, _ func(), w io.Writer) { io.WriteString(w, "hello") })
			base := runtime.NumGoroutine()
			// A budget no fast handler outlives, even on a loaded machine
			// under the race detector: this is about where they run.
			s := start(t, h, Config{Loops: loops, H2C: true, HandlerBudget: 50 * time.Millisecond, ErrorLog: discardLog()})
			peers := make([]*h2Peer, conns)
			for i := range peers {
				peers[i] = dialH2(t, s).decodeHeaders()
			}
			peak := 0
			for round := range rounds {
				ids := make([]uint32, streams)
				for i := range ids {
					ids[i] = uint32(1 + 2*(round*streams+i))
				}
				for _, p := range peers {
					for _, id := range ids {
						if err := p.get(id, "/"); err != nil {
							t.Fatal(err)
						}
					}
				}
				for i, p := range peers {
					got, err := p.answers(10*time.Second, ids...)
					if err != nil {
						t.Fatalf("round %d, connection %d: %v", round, i, err)
					}
					for id, a := range got {
						if a.status != "200" || string(a.body) != "hello" || a.reset {
							t.Fatalf("round %d, stream %d: %+v", round, id, a)
						}
					}
				}
				peak = max(peak, runtime.NumGoroutine()-base)
			}
			// The loops, Serve, the date clock and the watchdog.
			if limit := loops + 4; peak > limit {
				t.Errorf("the server ran %d goroutines for %d streams at a time, want at most %d (loops + 4)",
					peak, conns*streams, limit)
			}
			if st := s.Stats(); st.Workers > 2 || st.Requests < rounds*conns*streams {
				t.Errorf("stats %+v: want every stream answered, on the loops", st)
			}
		})
	}
}

func TestH2AutoWaitingHandlerStallsNoOtherStream(t *testing.T) {
	const bigBody = 200_000 // past the client's 64 KiB windows: it must be pumped as they open
	for _, api := range h2AutoAPIs {
		t.Run(api.name, func(t *testing.T) {
			entered, release := make(chan struct{}, 1), make(chan struct{})
			var once sync.Once
			t.Cleanup(func() { once.Do(func() { close(release) }) })
			h := api.wrap(func(path string, _ func(), w io.Writer) {
				if path == "/wait" {
					entered <- struct{}{}
					<-release
					w.Write(bytes.Repeat([]byte("w"), bigBody))
					return
				}
				io.WriteString(w, "hello")
			})
			s := start(t, h, Config{Loops: 1, H2C: true, ErrorLog: discardLog()})
			p := dialH2(t, s).decodeHeaders()
			p.get(1, "/wait")
			<-entered
			t.Run("a stream on the same connection is answered", func(t *testing.T) {
				p.get(3, "/")
				got, err := p.answers(10*time.Second, 3)
				if err != nil || got[3].status != "200" || string(got[3].body) != "hello" {
					t.Fatalf("stream 3: %+v, %v", got[3], err)
				}
			})
			t.Run("a stream on another connection is answered", func(t *testing.T) {
				q := dialH2(t, s).decodeHeaders()
				q.get(1, "/")
				got, err := q.answers(10*time.Second, 1)
				if err != nil || got[1].status != "200" || string(got[1].body) != "hello" {
					t.Fatalf("stream 1: %+v, %v", got[1], err)
				}
			})
			if st := s.Stats(); st.MovedOff < 1 {
				t.Errorf("stats %+v: the waiting handler was not moved off its loop", st)
			}
			once.Do(func() { close(release) })
			t.Run("the waiting stream's response arrives whole", func(t *testing.T) {
				got, err := p.answers(10*time.Second, 1)
				if a := got[1]; err != nil || a.status != "200" || len(a.body) != bigBody || a.reset {
					t.Fatalf("stream 1: status %q, %d bytes, reset %v, %v", a.status, len(a.body), a.reset, err)
				}
			})
		})
	}
}

func TestH2AutoLearnsRoutesThatWait(t *testing.T) {
	var srv atomic.Pointer[Server]
	var waits atomic.Int64
	waits.Store(strikesToLearn)
	onLoop := make(chan bool, 1)
	h := HandlerFunc(func(c *Ctx) {
		onLoop <- c.mover != nil // set only for a handler started on its loop
		if string(c.Path()) == "/slow" {
			if n := waits.Add(-1); n >= 0 {
				// Wait until the watchdog has moved this handler off (bounded:
				// one never moved fails the test below instead of hanging it).
				for end := time.Now().Add(5 * time.Second); srv.Load().Stats().MovedOff < strikesToLearn-n && time.Now().Before(end); {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(10 * DefaultHandlerBudget) // and go on waiting: not a blip
			}
		}
		c.WriteString("ok")
	})
	s := &Server{Handler: h, Config: Config{Loops: 1, H2C: true, ErrorLog: discardLog()}}
	srv.Store(s)
	serveForTest(t, s)
	p := dialH2(t, s).decodeHeaders()
	id := uint32(1)
	get := func(path string) bool {
		t.Helper()
		p.get(id, path)
		got, err := p.answers(10*time.Second, id)
		if a := got[id]; err != nil || a.status != "200" || string(a.body) != "ok" {
			t.Fatalf("%s: %+v, %v", path, a, err)
		}
		id += 2
		return <-onLoop
	}
	for i := range strikesToLearn {
		if !get("/slow") {
			t.Fatalf("stream %d of a route started on a worker, want its loop", i+1)
		}
	}
	for i := range firstProbe {
		if get("/slow") {
			t.Fatalf("stream %d after the route waited started on the loop, want a worker", i+1)
		}
	}
	if !get("/fast") {
		t.Error("a route that never waited did not start on its loop")
	}
}

func TestH2AutoHandlerFaults(t *testing.T) {
	for _, api := range h2AutoAPIs {
		t.Run(api.name, func(t *testing.T) {
			var srv atomic.Pointer[Server]
			h := api.wrap(func(path string, flush func(), w io.Writer) {
				if strings.HasSuffix(path, "-late") {
					// Wait until the watchdog has moved the handler off its loop.
					for before, end := srv.Load().Stats().MovedOff, time.Now().Add(5*time.Second); srv.Load().Stats().MovedOff == before && time.Now().Before(end); {
						time.Sleep(time.Millisecond)
					}
				}
				switch strings.TrimSuffix(path, "-late") {
				case "/panic":
					panic("boom")
				case "/goexit":
					runtime.Goexit()
				case "/flush-panic":
					io.WriteString(w, "partial")
					flush()
					panic("boom")
				case "/flush-goexit":
					io.WriteString(w, "partial")
					flush()
					runtime.Goexit()
				}
				io.WriteString(w, "hello")
			})
			s := &Server{Handler: h, Config: Config{Loops: 1, H2C: true, ErrorLog: discardLog()}}
			srv.Store(s)
			serveForTest(t, s)
			p := dialH2(t, s).decodeHeaders()
			id := uint32(1)
			for _, tt := range []struct {
				path string
				want string // a status, or "reset"
			}{
				{"/panic", "500"},
				{"/panic-late", "500"},
				{"/goexit", "reset"},
				{"/goexit-late", "reset"},
				{"/flush-panic", "reset"},
				{"/flush-goexit", "reset"},
			} {
				t.Run(tt.path+" is answered "+tt.want+", and the connection serves on", func(t *testing.T) {
					p.get(id, tt.path)
					p.get(id+2, "/")
					got, err := p.answers(10*time.Second, id, id+2)
					if err != nil {
						t.Fatal(err)
					}
					a := got[id]
					switch {
					case tt.want == "reset" && (!a.reset || a.code != xhttp2.ErrCodeInternal):
						t.Errorf("got %+v, want RST_STREAM(INTERNAL_ERROR)", a)
					case tt.want != "reset" && (a.reset || a.status != tt.want):
						t.Errorf("got %+v, want status %s", a, tt.want)
					}
					if b := got[id+2]; b.status != "200" || string(b.body) != "hello" {
						t.Errorf("the next stream got %+v", b)
					}
					id += 4
				})
			}
			stillServes(t, s)
			if !waitFor(5*time.Second, func() bool { return s.Stats().InFlight == 0 }) {
				t.Errorf("stats %+v: requests still counted in flight", s.Stats())
			}
			if st := s.Stats(); st.Requests < 13 {
				t.Errorf("stats %+v: want every stream counted", st)
			}
		})
	}
}

// TestH2AutoAdapterBodies checks the rule for streamed bodies: an
// adapter stream whose body has all arrived when its loop starts it runs
// there, and one whose body is still arriving goes to a worker, where
// reading it may wait. (Bodies of every size, both APIs, are in
// TestH2CWithNetHTTPClient.)
func TestH2AutoAdapterBodies(t *testing.T) {
	started := make(chan struct{}, 1)
	h := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		n, err := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%d %v", n, err)
	}))
	s := start(t, h, Config{Loops: 1, H2C: true, ErrorLog: discardLog()})
	p := dialH2(t, s).decodeHeaders()
	post := p.block("/")
	t.Run("a body all in with its headers is read on the loop", func(t *testing.T) {
		// HEADERS and DATA in one write, so one read takes both.
		var batch bytes.Buffer
		fr := xhttp2.NewFramer(&batch, nil)
		fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, BlockFragment: post, EndHeaders: true})
		fr.WriteData(1, true, []byte("hello"))
		p.c.Write(batch.Bytes())
		<-started
		got, err := p.answers(10*time.Second, 1)
		if a := got[1]; err != nil || a.status != "200" || string(a.body) != "5 <nil>" {
			t.Fatalf("got %+v, %v", a, err)
		}
		if st := s.Stats(); st.Workers != 0 {
			t.Errorf("stats %+v: a worker served it", st)
		}
	})
	t.Run("a body still arriving is read on a worker", func(t *testing.T) {
		p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 3, BlockFragment: post, EndHeaders: true})
		<-started // with no body yet: it must not be on the loop
		if st := s.Stats(); st.Workers < 1 {
			t.Errorf("stats %+v: no worker took the stream", st)
		}
		p.fr.WriteData(3, true, []byte("hello"))
		got, err := p.answers(10*time.Second, 3)
		if a := got[3]; err != nil || a.status != "200" || string(a.body) != "5 <nil>" {
			t.Fatalf("got %+v, %v", a, err)
		}
	})
}
