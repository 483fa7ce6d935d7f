package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// logBuffer collects a server's ErrorLog output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// faulty answers /ok with "fine" and runs fault for every other path.
func faulty(fault func(c *Ctx)) Handler {
	return HandlerFunc(func(c *Ctx) {
		if string(c.Path()) == "/ok" {
			c.WriteString("fine")
			return
		}
		fault(c)
	})
}

// faultyHTTP is faulty for the net/http adapter.
func faultyHTTP(fault func(w http.ResponseWriter, r *http.Request)) Handler {
	return HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			io.WriteString(w, "fine")
			return
		}
		fault(w, r)
	}))
}

func TestHandlerFaults(t *testing.T) {
	tests := []struct {
		name    string
		mode    Mode
		handler Handler
		// status is what the client gets for /fault: 500, or, when the
		// handler had flushed, the 200 it began, with its body cut short
		// after partial.
		status  int
		partial string
		log     string // in the ErrorLog
	}{
		{"a native handler that panics gets a 500", Pooled, faulty(func(c *Ctx) {
			c.SetHeader("X-Lost", "yes")
			c.WriteString("never sent")
			panic("boom")
		}), 500, "", "panic serving GET /fault: boom"},
		{"a native handler that panics on an Inline loop gets a 500", Inline, faulty(func(c *Ctx) {
			c.WriteString("never sent")
			panic("boom")
		}), 500, "", "panic serving GET /fault: boom"},
		{"a native handler that panics after Flush is cut short", Pooled, faulty(func(c *Ctx) {
			c.WriteString("partial")
			if err := c.Flush(); err != nil {
				panic(err)
			}
			c.WriteString(" and never the rest")
			panic("boom")
		}), 200, "partial", "panic serving GET /fault: boom"},
		{"an http.Handler that panics gets a 500", Pooled, faultyHTTP(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Lost", "yes")
			w.WriteHeader(201)
			io.WriteString(w, "never sent")
			panic("boom")
		}), 500, "", "panic serving GET /fault: boom"},
		{"an http.Handler that panics after flushing is cut short", Pooled, faultyHTTP(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			io.WriteString(w, " and never the rest")
			panic("boom")
		}), 200, "partial", "panic serving GET /fault: boom"},
		{"a native handler that calls runtime.Goexit gets a 500", Pooled, faulty(func(c *Ctx) {
			c.WriteString("never sent")
			runtime.Goexit()
		}), 500, "", "runtime.Goexit serving GET /fault"},
		{"a native handler that calls runtime.Goexit after Flush is cut short", Pooled, faulty(func(c *Ctx) {
			c.WriteString("partial")
			c.Flush()
			runtime.Goexit()
		}), 200, "partial", "runtime.Goexit serving GET /fault"},
		{"an http.Handler that calls runtime.Goexit gets a 500", Pooled, faultyHTTP(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "never sent")
			runtime.Goexit()
		}), 500, "", "runtime.Goexit serving GET /fault"},
	}
	for _, tt := range tests {
		modes := []Mode{tt.mode}
		if tt.mode == Pooled {
			modes = append(modes, Auto) // where Auto must behave as Pooled does
		}
		for _, mode := range modes {
			t.Run(mode.String()+"/"+tt.name, func(t *testing.T) {
				var logged logBuffer
				// One worker: a fault must not cost the pool its only worker.
				s := start(t, tt.handler, Config{Mode: mode, Loops: 1, MaxWorkers: 1, ErrorLog: log.New(&logged, "", 0)})
				c, r := rawConn(t, s)
				c.SetDeadline(time.Now().Add(5 * time.Second)) // a hang fails, not stalls
				// A pipelined request before the faulty one must keep its answer.
				io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /fault HTTP/1.1\r\nHost: x\r\n\r\n")
				if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "fine" {
					t.Fatalf("the request before the fault got %d %q, want 200 fine", resp.StatusCode, body)
				}
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("reading the response to the faulty request: %v", err)
				}
				body, err := io.ReadAll(resp.Body)
				if errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("the response hangs after %q", body)
				}
				if resp.StatusCode != tt.status {
					t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
				}
				if tt.status == 500 {
					if err != nil || resp.Header.Get("X-Lost") != "" || !resp.Close {
						t.Errorf("500 response: body %q (%v), headers %v: want a whole 500 of its own that closes", body, err, resp.Header)
					}
				} else if string(body) != tt.partial || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("body %q (%v), want %q cut short by the connection closing", body, err, tt.partial)
				}
				if !closedByPeer(c, r, 2*time.Second) {
					t.Error("the connection stays open after the fault")
				}
				if !strings.Contains(logged.String(), tt.log) {
					t.Errorf("ErrorLog has %q, want %q", logged.String(), tt.log)
				}
				// The server goes on.
				if resp, body := exchange(t, s, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || body != "fine" {
					t.Errorf("after the fault got %d %q, want 200 fine", resp.StatusCode, body)
				}
				if st := s.Stats(); st.InFlight != 0 {
					t.Errorf("%d requests still in flight after the fault", st.InFlight)
				}
			})
		}
	}
}

// readResponse reads one whole response from r.
func readResponse(t *testing.T, r *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading a body: %v", err)
	}
	return resp, string(body)
}

// blocker is a handler whose /block requests wait until release is
// closed (at the end of the test), saying so on entered.
type blocker struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

// waitEntered waits until a /block request is in the handler.
func (b *blocker) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-b.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the /block request never reached the handler")
	}
}

func (b *blocker) ServeGust(c *Ctx) {
	if string(c.Path()) == "/block" {
		b.entered <- struct{}{}
		<-b.release
	}
	c.WriteString("fine")
}

func TestAHandlerThatNeverReturns(t *testing.T) {
	for _, mode := range []Mode{Pooled, Auto} {
		t.Run("in "+mode.String()+" mode it holds only its own connection", func(t *testing.T) {
			neverReturns(t, mode)
		})
	}
	t.Run("in Inline mode it holds its whole loop until it returns", func(t *testing.T) {
		// The documented contract of Inline: handlers run on the loop.
		b := newBlocker()
		s := start(t, b, Config{Loops: 1, Mode: Inline, ErrorLog: discardLog()})
		blocked, br := rawConn(t, s)
		io.WriteString(blocked, "GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
		b.waitEntered(t)
		c, r := rawConn(t, s)
		io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := r.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("another connection of the loop was answered (%v) while a handler blocks it", err)
		}
		close(b.release)
		blocked.SetReadDeadline(time.Now().Add(5 * time.Second))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for _, r := range []*bufio.Reader{br, r} {
			if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "fine" {
				t.Errorf("once the handler returned got %d %q", resp.StatusCode, body)
			}
		}
	})
}

// neverReturns checks that a handler that blocks until the end of the
// test holds only its own connection: others on its loop are served.
func neverReturns(t *testing.T, mode Mode) {
	b := newBlocker()
	s := start(t, b, Config{Loops: 1, Mode: mode, ErrorLog: discardLog()})
	t.Cleanup(func() { close(b.release) }) // before the server's Shutdown
	blocked, _ := rawConn(t, s)
	io.WriteString(blocked, "GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	b.waitEntered(t)
	// Other connections on the same loop, new and kept alive, go on.
	c, r := rawConn(t, s)
	for i := 0; i < 10; i++ {
		io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, body := readResponse(t, r); resp.StatusCode != 200 || body != "fine" {
			t.Fatalf("got %d %q while a handler blocks", resp.StatusCode, body)
		}
	}
	if resp, body := exchange(t, s, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || body != "fine" {
		t.Fatalf("a new connection got %d %q while a handler blocks", resp.StatusCode, body)
	}
}
