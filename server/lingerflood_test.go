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

	"golang.org/x/sys/unix"
)

// TestAFloodOfUnreadUploadsStaysBounded opens many uploads that never end
// to a handler that reads none of them. Each gets its response and a
// lingering close; while the server lingers on all of them at once (the
// clients still sending), it holds no goroutine and no buffer per
// connection, and each connection closes within lingerTime.
func TestAFloodOfUnreadUploadsStaysBounded(t *testing.T) {
	const uploads = 200
	s := start(t, HTTPHandler(http.HandlerFunc(ignoreBodyHTTP)), Config{})
	runtime.GC()
	runtime.GC()
	base := runtime.NumGoroutine()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	// 640 KiB/s each: the connections reach lingerTime before
	// lingerBytes, so the server lingers on all at once.
	chunk := fmt.Sprintf("%x\r\n%s\r\n", 32<<10, strings.Repeat("x", 32<<10))
	responses := endlessUploads(t, s.Addr().String(), uploads, chunk, 50*time.Millisecond)
	for range uploads {
		if err := <-responses; err != nil {
			t.Fatalf("an upload got no whole response with Connection: close: %v", err)
		}
	}
	// Every response is out; the clients are still sending and the server
	// is lingering on their connections. Two collections empty the pools.
	runtime.GC()
	runtime.GC()
	var during runtime.MemStats
	runtime.ReadMemStats(&during)
	st := s.Stats()
	open := st.OpenConns
	// Beyond the base: the test's uploaders, and the pool's workers, idle
	// now (they retire after idleLinger); lingering itself takes none.
	goroutines := runtime.NumGoroutine() - base - uploads - st.Workers
	heap := int64(during.HeapInuse) - int64(before.HeapInuse)
	t.Logf("lingering: %d open connections, %d requests in flight, %d idle workers, %d other goroutines over the base, heap %+d KiB",
		open, st.InFlight, st.Workers, goroutines, heap>>10)
	if st.InFlight != 0 {
		t.Errorf("%d requests still in flight while lingering; want none", st.InFlight)
	}
	if goroutines > 16 {
		t.Errorf("%d goroutines beyond the base while lingering on %d connections; want a small constant", goroutines, open)
	}
	if open < uploads/2 {
		t.Errorf("only %d of %d connections lingering: the test did not load the server as meant", open, uploads)
	}
	// Half a read buffer a connection covers both ends' small state (the
	// test's net.Conns are in this heap too, and the race detector's
	// bookkeeping), and not one 64 KiB read buffer each.
	if heap > uploads*32<<10 {
		t.Errorf("heap grew %d KiB while lingering; want no buffer per connection", heap>>10)
	}
	if !waitFor(lingerTime+3*time.Second, func() bool { return s.Stats().OpenConns == 0 }) {
		t.Errorf("%d connections still open after lingerTime", s.Stats().OpenConns)
	}
}

// TestLingeringReadsArePacedByTime: endless uploads sent as fast as the
// clients can, to a handler that reads none of them, make their loop read
// and drop at most lingerRate bytes a second between them, however little
// else it has to do (a loop that read each lingering socket once a turn
// let such a flood take most of its core).
func TestLingeringReadsArePacedByTime(t *testing.T) {
	const uploads = 50
	s := start(t, HTTPHandler(http.HandlerFunc(ignoreBodyHTTP)), Config{Loops: 1})
	chunk := strings.Repeat(fmt.Sprintf("%x\r\n%s\r\n", 16<<10, strings.Repeat("x", 16<<10)), 4)
	responses := endlessUploads(t, s.Addr().String(), uploads, chunk, 0)
	for range uploads {
		if err := <-responses; err != nil {
			t.Fatalf("an upload got no whole response with Connection: close: %v", err)
		}
	}
	// All are lingering now: what the server reads from here on is
	// discarded. Each closes at lingerTime or lingerBytes from its own
	// response, and on a loaded machine the responses can spread over
	// seconds, so the window is short and only asks that some are still
	// lingering at its end: one endless upload alone can send more than
	// lingerRate, so a few keep the loop's budget the limit.
	from, start := s.Stats().BytesRead, time.Now()
	time.Sleep(500 * time.Millisecond)
	read, took := s.Stats().BytesRead-from, time.Since(start)
	// Slack: the loop's clock and the test's are read at slightly
	// different moments, and a read may overshoot the budget by a chunk.
	limit := int64(took.Seconds()*lingerRate*1.02) + lingerBurst + 2*lingerChunk
	t.Logf("%d lingering uploads: the loop read %d KiB in %v (at most %d KiB)", uploads, read>>10, took.Round(time.Millisecond), limit>>10)
	if read > limit {
		t.Errorf("the loop read %d bytes of lingering uploads in %v, more than lingerRate allows (%d)", read, took, limit)
	}
	if read < lingerChunk {
		t.Errorf("the loop read %d bytes of lingering uploads in %v: it is not lingering on them", read, took)
	}
	if open := s.Stats().OpenConns; open < 5 {
		t.Errorf("only %d of %d uploads still lingering at the window's end: the loop may have had less to read than lingerRate", open, uploads)
	}
}

// endlessUploads opens n connections to addr, each sending a chunked
// upload that never ends (chunk after chunk, pause between them) until the
// server closes it or the test ends, and reading its response. Each
// response's outcome comes on the channel: nil for a 200 that says
// Connection: close.
func endlessUploads(t *testing.T, addr string, n int, chunk string, pause time.Duration) <-chan error {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() }) // after the connections' Close below
	responses := make(chan error, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(20 * time.Second))
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := io.WriteString(c, chunk); err != nil {
					return
				}
				if pause > 0 {
					time.Sleep(pause)
				}
			}
		}()
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err == nil && (resp.StatusCode != 200 || !resp.Close) {
				err = fmt.Errorf("status %d, close %v", resp.StatusCode, resp.Close)
			}
			responses <- err
		}()
	}
	return responses
}

// TestLingeringCloseEndsAtTheClientsEndOfStream: a client whose upload
// was refused reads its response, sends the rest of what it had (less
// than one lingering read), and closes its side, the FIN in the same
// segment as those bytes: the one event announces both, and the server
// must still read up to the end of stream and close then, not hold the
// connection until lingerTime.
func TestLingeringCloseEndsAtTheClientsEndOfStream(t *testing.T) {
	for _, mode := range []Mode{Pooled, Auto, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := start(t, HandlerFunc(ignoreBody), Config{Mode: mode, Loops: 1, MaxBodyBytes: 1 << 10})
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			req := "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + strings.Repeat("a", 1000)
			io.WriteString(c, req)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if !resp.Close {
				t.Fatalf("status %d without Connection: close: the server is not lingering", resp.StatusCode)
			}
			// Lingering now (the server shut its side: the client reads
			// the end of stream), and its socket drained (the server read
			// all the client sent).
			if _, err := io.Copy(io.Discard, br); err != nil {
				t.Fatalf("after the response: %v, want the end of stream of a lingering close", err)
			}
			if !waitFor(5*time.Second, func() bool { return s.Stats().BytesRead >= int64(len(req)) }) {
				t.Fatalf("the server read %d bytes of the %d sent", s.Stats().BytesRead, len(req))
			}
			// Corked, the last bytes and the FIN leave in one segment,
			// and the server gets one event for both.
			tc := c.(*net.TCPConn)
			raw, err := tc.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			raw.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_CORK, 1) })
			io.WriteString(c, strings.Repeat("b", 2000))
			tc.CloseWrite()
			start := time.Now()
			if !waitFor(lingerTime/2, func() bool { return s.Stats().OpenConns == 0 }) {
				t.Fatalf("the connection was still open %v after the client's end of stream (lingerTime %v)", time.Since(start).Round(time.Millisecond), lingerTime)
			}
		})
	}
}
