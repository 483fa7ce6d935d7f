package load_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// faultTarget is a loopback server that misbehaves in one way: serve runs
// on every accepted connection until it returns or the target is killed.
type faultTarget struct {
	ln    net.Listener
	serve func(c net.Conn)

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	dead  bool
}

// startFault listens on 127.0.0.1 (or uses ln, if given) and serves every
// connection with serve until the test ends.
func startFault(t *testing.T, ln net.Listener, serve func(c net.Conn)) *faultTarget {
	t.Helper()
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	f := &faultTarget{ln: ln, serve: serve, conns: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(f.kill)
	return f
}

func (f *faultTarget) url() string { return "http://" + f.ln.Addr().String() + "/" }

func (f *faultTarget) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		if f.dead {
			f.mu.Unlock()
			c.Close()
			return
		}
		f.conns[c] = struct{}{}
		f.wg.Add(1)
		f.mu.Unlock()
		go func() {
			defer f.wg.Done()
			f.serve(c)
			c.Close()
			f.mu.Lock()
			delete(f.conns, c)
			f.mu.Unlock()
		}()
	}
}

// kill closes the listener and every connection, as a crashing server
// would, and waits for the serving goroutines.
func (f *faultTarget) kill() {
	f.mu.Lock()
	f.dead = true
	f.ln.Close()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// eachRequest reads requests (the generator sends heads without bodies
// here) and calls answer with the connection and the request's number on
// it, until answer returns false or the connection ends.
func eachRequest(answer func(c net.Conn, n int) bool) func(c net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		for n := 1; ; n++ {
			req, err := http.ReadRequest(r)
			if err != nil {
				return
			}
			req.Body.Close()
			if !answer(c, n) {
				return
			}
		}
	}
}

// answerWith answers every request with the bytes of response.
func answerWith(response string) func(c net.Conn) {
	return eachRequest(func(c net.Conn, n int) bool {
		_, err := io.WriteString(c, response)
		return err == nil
	})
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// rst closes c with an RST instead of a FIN.
func rst(c net.Conn) {
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
}

// hangUp closes c with a FIN, reading what the client still sends so
// that the kernel does not answer it with an RST.
func hangUp(c net.Conn) {
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, c)
}

// flood writes unit over and over, in large writes, until c fails.
func flood(c net.Conn, unit []byte) {
	buf := bytes.Repeat(unit, (256<<10)/len(unit))
	for {
		if _, err := c.Write(buf); err != nil {
			return
		}
	}
}

// faultRun is one run against a misbehaving target.
type faultRun struct {
	name string
	cfg  load.Config
}

// faultRuns are the load models every target is tried with: short runs
// with a short timeout, closed and open, with and without keep-alive.
// (The closed model reconnects as fast as a failing target lets it, so it
// churns through thousands of ports a second; once is enough.)
func faultRuns() []faultRun {
	const d, timeout = time.Second, 300 * time.Millisecond
	return []faultRun{
		{"closed model", load.Config{Connections: 4, Loops: 2, Duration: d, Timeout: timeout}},
		{"open model", load.Config{Connections: 4, Loops: 2, Duration: d, Timeout: timeout, Rate: 200}},
		{"open model, a connection per request", load.Config{Connections: 4, Loops: 2, Duration: d, Timeout: timeout, Rate: 200, DisableKeepAlive: true}},
	}
}

func TestFaultyTargets(t *testing.T) {
	const (
		refused  = result.ErrConnectRefused
		ctimeout = result.ErrConnectTimeout
		reset    = result.ErrReset
		closed   = result.ErrClosed
		rtimeout = result.ErrReadTimeout
		protocol = result.ErrProtocol
	)
	tests := []struct {
		name  string
		start func(t *testing.T) *faultTarget
		want  result.ErrorKind // counted at least once
		// also lists other kinds that may be counted. Timeouts always may,
		// on a loaded machine: a target starved of CPU (the tests run in
		// parallel) can answer late, and with ports churning, a SYN can
		// meet a connection still in TIME_WAIT and wait for its retry.
		also []result.ErrorKind
	}{
		{"a target that dies mid-run: connections refused", func(t *testing.T) *faultTarget {
			var served atomic.Int64
			dying := make(chan struct{})
			f := startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				if served.Add(1) == 20 {
					close(dying)
				}
				_, err := io.WriteString(c, okResponse)
				return err == nil
			}))
			go func() {
				select {
				case <-dying:
					f.kill()
				case <-t.Context().Done():
				}
			}()
			return f
		}, refused, []result.ErrorKind{closed, reset}}, // requests in flight when it died
		{"a target that resets every third request: resets", func(t *testing.T) *faultTarget {
			var served atomic.Int64
			return startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				if served.Add(1)%3 == 0 {
					rst(c)
					return false
				}
				_, err := io.WriteString(c, okResponse)
				return err == nil
			}))
		}, reset, nil},
		{"a target that resets every connection but the probe on accept: resets", func(t *testing.T) *faultTarget {
			var accepted atomic.Int64
			return startFault(t, nil, func(c net.Conn) {
				if accepted.Add(1) == 1 {
					io.Copy(io.Discard, c) // the start-up probe: let it go
					return
				}
				rst(c)
			})
		}, reset, nil},
		{"a target that hangs up on every request: closed", func(t *testing.T) *faultTarget {
			return startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				hangUp(c)
				return false
			}))
		}, closed, nil},
		{"a target that answers non-HTTP bytes: protocol", func(t *testing.T) *faultTarget {
			return startFault(t, nil, answerWith("SSH-2.0-OpenSSH_9.6\r\n"))
		}, protocol, nil},
		{"a target that answers binary noise: protocol", func(t *testing.T) *faultTarget {
			return startFault(t, nil, answerWith("\x00\xff\x16\x03\x01\x02\x00"))
		}, protocol, nil},
		{"a target that answers a bad status line: protocol", func(t *testing.T) *faultTarget {
			return startFault(t, nil, answerWith("HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok"))
		}, protocol, nil},
		{"a target that answers an invalid chunked body: protocol", func(t *testing.T) *faultTarget {
			return startFault(t, nil, answerWith("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n"))
		}, protocol, nil},
		{"a target that sends less than its Content-Length and closes: closed", func(t *testing.T) *faultTarget {
			return startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")
				return false
			}))
		}, closed, nil},
		{"a target that answers a request never sent: protocol", func(t *testing.T) *faultTarget {
			return startFault(t, nil, answerWith(okResponse+okResponse))
		}, protocol, nil},
		{"a target that sends a head that never ends: protocol", func(t *testing.T) *faultTarget {
			return startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				io.WriteString(c, "HTTP/1.1 200 OK\r\n")
				flood(c, []byte("X-Filler: 0123456789abcdef0123456789abcdef\r\n"))
				return false
			}))
		}, protocol, nil},
		{"a target that floods an endless body: read timeouts", func(t *testing.T) *faultTarget {
			return startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n")
				flood(c, []byte("0123456789abcdef"))
				return false
			}))
		}, rtimeout, nil},
		{"a target that accepts and never answers: read timeouts", func(t *testing.T) *faultTarget {
			return startFault(t, nil, func(c net.Conn) { io.Copy(io.Discard, c) })
		}, rtimeout, nil},
		{"a target that answers a byte every 100ms: read timeouts", func(t *testing.T) *faultTarget {
			return startFault(t, nil, eachRequest(func(c net.Conn, n int) bool {
				for i := 0; i < len(okResponse); i++ {
					if _, err := io.WriteString(c, okResponse[i:i+1]); err != nil {
						return false
					}
					time.Sleep(100 * time.Millisecond)
				}
				return true
			}))
		}, rtimeout, nil},
		{"a target that never accepts: connect timeouts", func(t *testing.T) *faultTarget {
			return startFault(t, fullBacklog(t), func(c net.Conn) {})
		}, ctimeout, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each run takes its duration, mostly waiting
			for _, fr := range faultRuns() {
				t.Run(fr.name, func(t *testing.T) {
					f := tt.start(t)
					cfg := fr.cfg
					cfg.URL = f.url()
					res := runBounded(t, cfg)
					t.Logf("%s: %d responses, errors %v, %d connects", fr.name, res.Requests, res.Errors, res.Connects)
					if res.Errors[tt.want] == 0 {
						t.Errorf("errors %v, want some %s", res.Errors, tt.want)
					}
					for kind, n := range res.Errors {
						if n > 0 && kind != tt.want && kind != rtimeout && kind != ctimeout && !slices.Contains(tt.also, kind) {
							t.Errorf("errors %v: %s is the wrong class here", res.Errors, kind)
						}
					}
					checkReports(t, res)
				})
			}
		})
	}
}

func TestTargetsThatCannotBeReached(t *testing.T) {
	t.Run("a target that resets every connection is refused or its resets counted", func(t *testing.T) {
		f := startFault(t, nil, rst)
		for _, fr := range faultRuns() {
			t.Run(fr.name, func(t *testing.T) {
				cfg := fr.cfg
				cfg.URL = f.url()
				// Whether the start-up probe sees the reset is a race with
				// the target's accept; either outcome must be clear.
				res, err := load.Run(context.Background(), cfg)
				if err != nil {
					if !strings.Contains(err.Error(), "reset") || !strings.Contains(err.Error(), f.ln.Addr().String()) {
						t.Errorf("err = %v, want a reset naming %s", err, f.ln.Addr())
					}
					return
				}
				if res.Errors[result.ErrReset] == 0 {
					t.Errorf("errors %v, want resets", res.Errors)
				}
			})
		}
	})
	t.Run("a target whose accept queue is full fails within the timeout", func(t *testing.T) {
		ln := fullBacklog(t)
		f := startFault(t, ln, func(c net.Conn) {})
		// Fill the queue: dial until a dial is not answered.
		for i := 0; ; i++ {
			c, err := net.DialTimeout("tcp", ln.Addr().String(), 200*time.Millisecond)
			if err != nil {
				break
			}
			defer c.Close()
			if i == 8 {
				t.Skip("the kernel keeps accepting connections for a listener that never accepts")
			}
		}
		cfg := load.Config{URL: f.url(), Connections: 4, Duration: time.Second, Timeout: 300 * time.Millisecond}
		start := time.Now()
		_, err := load.Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), "cannot connect to "+ln.Addr().String()) {
			t.Errorf("err = %v, want one saying it cannot connect to %s", err, ln.Addr())
		}
		if took, limit := time.Since(start), cfg.Timeout+2*time.Second; took > limit {
			t.Errorf("Run took %s to fail, want at most %s with a %s timeout", took, limit, cfg.Timeout)
		}
	})
}

// runBounded runs cfg and fails the test if Run hangs, panics or does not
// keep to cfg.Duration: the run must measure at least its duration and
// return within its duration plus the timeout (measurement waits at most
// that long for connections) plus a margin.
func runBounded(t *testing.T, cfg load.Config) *result.Result {
	t.Helper()
	type outcome struct {
		res *result.Result
		err error
		p   any
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		var o outcome
		defer func() {
			if o.p = recover(); o.p != nil {
				o.p = fmt.Sprintf("%v\n%s", o.p, stack(false))
			}
			done <- o
		}()
		o.res, o.err = load.Run(context.Background(), cfg)
	}()
	limit := cfg.Duration + cfg.Timeout + 2*time.Second
	var o outcome
	select {
	case o = <-done:
	case <-time.After(limit + 10*time.Second):
		t.Fatalf("Run did not return %s after it started (duration %s):\n%s", time.Since(start), cfg.Duration, stack(true))
	}
	took := time.Since(start)
	switch {
	case o.p != nil:
		t.Fatalf("Run panicked: %v", o.p)
	case o.err != nil:
		t.Fatalf("Run: %v", o.err)
	}
	if took > limit {
		t.Errorf("Run took %s, want at most %s for a %s run with a %s timeout", took, limit, cfg.Duration, cfg.Timeout)
	}
	if o.res.Duration < cfg.Duration {
		t.Errorf("measured %s, want the whole %s", o.res.Duration, cfg.Duration)
	}
	return o.res
}

func stack(all bool) []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, all)]
}

// checkReports renders res as text and JSON: both must work and show the
// errors that were counted.
func checkReports(t *testing.T, res *result.Result) {
	t.Helper()
	var text bytes.Buffer
	if err := report.Text(&text, res); err != nil {
		t.Fatalf("text report: %v", err)
	}
	for kind, n := range res.Errors {
		if n > 0 && !strings.Contains(text.String(), kind.String()+": ") {
			t.Errorf("text report does not show %s:\n%s", kind, text.String())
		}
	}
	var js bytes.Buffer
	if err := report.JSON(&js, res); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	var parsed struct {
		Errors map[string]int64 `json:"errors"`
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatalf("JSON report does not parse: %v\n%s", err, js.String())
	}
	for kind, n := range res.Errors {
		if parsed.Errors[kind.String()] != n {
			t.Errorf("JSON report has %s: %d, want %d", kind, parsed.Errors[kind.String()], n)
		}
	}
}
