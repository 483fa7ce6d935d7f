//go:build linux

package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLoopsOwnThreadsServeInEveryMode: loops that wait in epoll_wait on
// their own threads serve as parked ones do, in every mode, handlers that
// wait on workers included (their answers reach a loop through its
// wake-up descriptor, not the runtime's poller), and Listen leaves a P
// beyond the loops for everything else.
func TestLoopsOwnThreadsServeInEveryMode(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, mode := range []Mode{Inline, Pooled, Auto} {
		t.Run(mode.String(), func(t *testing.T) {
			loops := runtime.GOMAXPROCS(0) // as many as Ps: Listen must add one
			s := start(t, HandlerFunc(func(c *Ctx) {
				if mode != Inline && strings.HasPrefix(string(c.Path()), "/wait") {
					time.Sleep(5 * time.Millisecond)
				}
				c.Write(c.Path())
			}), Config{Mode: mode, Loops: loops, LoopsOwnThreads: true})
			if got := runtime.GOMAXPROCS(0); got < loops+1 {
				t.Fatalf("GOMAXPROCS %d with %d loops on their own threads, want at least %d", got, loops, loops+1)
			}
			client := &http.Client{Timeout: 10 * time.Second}
			var wg sync.WaitGroup
			errs := make(chan error, 40)
			for i := range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					path := fmt.Sprintf("/fast/%d", i)
					if i%2 == 1 {
						path = fmt.Sprintf("/wait/%d", i)
					}
					resp, err := client.Get("http://" + s.Addr().String() + path)
					if err != nil {
						errs <- err
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if string(body) != path {
						errs <- fmt.Errorf("GET %s answered %q", path, body)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestLoopsOwnThreadsKeepTheirDeadlines: a loop waiting on its own thread
// wakes for its timer wheel, so that an idle keep-alive connection is
// closed at its IdleTimeout, not left open until the next event.
func TestLoopsOwnThreadsKeepTheirDeadlines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	s := start(t, hello, Config{Mode: Inline, Loops: 1, LoopsOwnThreads: true, IdleTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	start := time.Now()
	c.SetReadDeadline(start.Add(10 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("read after the idle timeout: %v, want EOF", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Errorf("closed after %s idle, want about the 300ms IdleTimeout", d)
	}
}
