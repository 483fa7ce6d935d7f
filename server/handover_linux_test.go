package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHandoverLosesNoRequest hands a serving server's listeners to a
// successor under a steady stream of requests, on kept-alive connections
// and on a new connection each, and drains the first: no request fails,
// and once the first has gone, the successor answers every one.
func TestHandoverLosesNoRequest(t *testing.T) {
	for _, loops := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d loops", loops), func(t *testing.T) {
			answer := func(s string) Handler { return HandlerFunc(func(c *Ctx) { c.WriteString(s) }) }
			first := &Server{Handler: answer("first"), Config: Config{Loops: loops, ErrorLog: discardLog()}}
			if err := first.Listen("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			firstDone := make(chan error, 1)
			go func() { firstDone <- first.Serve() }()
			url := "http://" + first.Addr().String() + "/"

			var failures, fromSecond atomic.Int64
			var lastErr atomic.Value
			stop := make(chan struct{})
			var wg sync.WaitGroup
			client := func(tr *http.Transport) {
				defer wg.Done()
				c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
				for {
					select {
					case <-stop:
						return
					default:
					}
					resp, err := c.Get(url)
					if err != nil {
						failures.Add(1)
						lastErr.Store(err.Error())
						continue
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					switch {
					case err != nil || resp.StatusCode != 200:
						failures.Add(1)
						lastErr.Store(fmt.Sprintf("status %d, %v", resp.StatusCode, err))
					case string(body) == "second":
						fromSecond.Add(1)
					}
				}
			}
			for range 4 {
				wg.Add(2)
				go client(&http.Transport{MaxIdleConnsPerHost: 1})
				go client(&http.Transport{DisableKeepAlives: true})
			}
			t.Cleanup(func() {
				select {
				case <-stop:
				default:
					close(stop)
				}
				wg.Wait()
			})

			files, err := first.ListenerFiles()
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != loops {
				t.Errorf("%d listener files from %d loops", len(files), loops)
			}
			second := &Server{Handler: answer("second"), Config: Config{Loops: loops, ErrorLog: discardLog()}}
			if err := second.ListenFiles(files); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				f.Close() // the successor keeps duplicates
			}
			if got, want := second.Addr().String(), first.Addr().String(); got != want {
				t.Errorf("the successor listens on %s, want %s", got, want)
			}
			secondDone := make(chan error, 1)
			go func() { secondDone <- second.Serve() }()

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := first.Shutdown(ctx); err != nil {
				t.Fatalf("the first server did not drain: %v", err)
			}
			if err := <-firstDone; err != ErrServerClosed {
				t.Errorf("first Serve: %v", err)
			}
			before := fromSecond.Load()
			if !waitFor(10*time.Second, func() bool { return fromSecond.Load() >= before+200 }) {
				t.Errorf("the successor answered %d requests after the first left, want 200 more", fromSecond.Load()-before)
			}
			close(stop)
			wg.Wait()
			if n := failures.Load(); n > 0 {
				t.Errorf("%d requests failed across the handover; last: %v", n, lastErr.Load())
			}
			if err := second.Shutdown(ctx); err != nil {
				t.Errorf("second Shutdown: %v", err)
			}
			if err := <-secondDone; err != ErrServerClosed {
				t.Errorf("second Serve: %v", err)
			}
		})
	}
}

// TestListenFilesRefusesWhatIsNotAListener: a server given something other
// than listening TCP sockets, or a count that fits no loop layout, says
// what is wrong and does not serve.
func TestListenFilesRefusesWhatIsNotAListener(t *testing.T) {
	fileOf := func(t *testing.T, c interface{ File() (*os.File, error) }) *os.File {
		f, err := c.File()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	listener := func(t *testing.T) *os.File {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return fileOf(t, ln.(*net.TCPListener))
	}
	for _, tc := range []struct {
		name  string
		loops int
		files func(t *testing.T) []*os.File
		want  string
	}{
		{"none", 1, func(t *testing.T) []*os.File { return nil }, "at least one"},
		{"a UDP socket", 1, func(t *testing.T) []*os.File {
			pc, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { pc.Close() })
			return []*os.File{fileOf(t, pc.(*net.UDPConn))}
		}, "not a stream"},
		{"a connected TCP socket", 1, func(t *testing.T) []*os.File {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return []*os.File{fileOf(t, c.(*net.TCPConn))}
		}, "does not listen"},
		{"a regular file", 1, func(t *testing.T) []*os.File {
			f, err := os.CreateTemp(t.TempDir(), "x")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return []*os.File{f}
		}, "not a socket"},
		{"three listeners for two loops", 2, func(t *testing.T) []*os.File {
			return []*os.File{listener(t), listener(t), listener(t)}
		}, "3 inherited listeners for 2 event loops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{Handler: hello, Config: Config{Loops: tc.loops, ErrorLog: discardLog()}}
			err := s.ListenFiles(tc.files(t))
			if err == nil {
				s.Close()
				t.Fatal("ListenFiles took it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestInheritedListenersReadsSystemdsVariables: sockets meant for another
// process are left alone, a count that is not one is an error, and the
// variables are gone afterwards either way (the descriptors themselves are
// tested through gust serve, in a process of their own).
func TestInheritedListenersReadsSystemdsVariables(t *testing.T) {
	for _, tc := range []struct {
		name, fds, pid string
		wantErr        bool
	}{
		{"none", "", "", false},
		{"for another process", "1", fmt.Sprint(os.Getpid() + 1), false},
		{"not a count", "two", "", true},
		{"negative", "-1", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fds != "" {
				t.Setenv("LISTEN_FDS", tc.fds)
			}
			if tc.pid != "" {
				t.Setenv("LISTEN_PID", tc.pid)
			}
			files, err := InheritedListeners()
			if (err != nil) != tc.wantErr {
				t.Errorf("error %v, want one: %v", err, tc.wantErr)
			}
			if len(files) != 0 {
				t.Errorf("%d files, want none", len(files))
			}
			if _, ok := os.LookupEnv("LISTEN_FDS"); ok {
				t.Error("LISTEN_FDS is still set")
			}
		})
	}
}

// TestShutdownLetsANewConnectionSendItsFirstRequest: a connection accepted
// just before Shutdown, whose request is still on its way, is answered
// (with Connection: close), not closed as idle; one that never sends is
// closed a moment later and Shutdown returns.
func TestShutdownLetsANewConnectionSendItsFirstRequest(t *testing.T) {
	s := &Server{Handler: hello, Config: Config{ErrorLog: discardLog()}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	sender, senderR := rawConn(t, s)
	silent, silentR := rawConn(t, s)
	// Both are accepted before Shutdown begins.
	if !waitFor(5*time.Second, func() bool { return s.Stats().OpenConns == 2 }) {
		t.Fatalf("%d connections open, want 2", s.Stats().OpenConns)
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	// Shutdown has begun: the listener is gone.
	if !waitFor(5*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", s.Addr().String(), 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	}) {
		t.Fatal("the listener still accepts after Shutdown began")
	}
	if _, err := io.WriteString(sender, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(senderR, nil)
	if err != nil {
		t.Fatalf("the new connection's first request was not answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !resp.Close {
		t.Errorf("status %d, close %v: want 200 with Connection: close", resp.StatusCode, resp.Close)
	}
	if !closedByPeer(silent, silentR, 10*time.Second) {
		t.Error("the connection that never sent was not closed")
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
}

// TestShutdownBoundsSilentNewConnections: a client that connects to a TLS
// port and never says hello, and one that finishes its handshake with h2
// by ALPN but never sends the preface, hold Shutdown up only for the
// grace a new connection gets, not for their timeouts.
func TestShutdownBoundsSilentNewConnections(t *testing.T) {
	conf := serverTLS()
	conf.NextProtos = []string{"h2", "http/1.1"}
	s := &Server{Handler: hello, Config: Config{TLS: conf, HTTP2: HTTP2Config{OverTLS: true}, ErrorLog: discardLog()}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	silent, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	cc := clientTLS(0)
	cc.NextProtos = []string{"h2"}
	h2, err := tls.Dial("tcp", s.Addr().String(), cc)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if p := h2.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN chose %q", p)
	}
	if !waitFor(5*time.Second, func() bool { return s.Stats().OpenConns == 2 }) {
		t.Fatalf("%d connections open, want 2", s.Stats().OpenConns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown with two silent new connections: %v (they held it past their grace)", err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
}
