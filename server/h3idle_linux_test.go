package server

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http3"
)

// TestHTTP3IdleConnHeap measures the heap the server holds per idle
// HTTP/3 connection: GUST_H3_IDLE_N clients (unset: skipped) each
// complete a handshake and one GET, then stay quiet, answering only what
// the server sends, for idleDwell (3 s); the heap the server's side allocated
// and still holds (the allocation profile's stacks that pass through the
// server's loop, not the test's clients) is divided by the connections.
// GUST_H3_IDLE_PROFILE names a heap profile to write.
func TestHTTP3IdleConnHeap(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GUST_H3_IDLE_N"))
	if n == 0 {
		t.Skip("a measurement: set GUST_H3_IDLE_N to the connections to open")
	}
	const idleDwell = 3 * time.Second // past the QUIC connection's idle release
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	_, addr := startH3(t, Config{Mode: Inline})
	req := http3.AppendSectionPrefix(nil)
	req = http3.AppendField(req, ":method", "GET")
	req = http3.AppendField(req, ":scheme", "https")
	req = http3.AppendField(req, ":authority", "localhost")
	req = http3.AppendField(req, ":path", "/")
	req = http3.AppendHeaders(nil, req)
	before := serverHeap()
	clients := make([]*h3RawClient, n)
	for i := range clients {
		c := dialH3Raw(t, addr)
		if resp, code := c.request(req); code != 0 || len(resp) == 0 {
			t.Fatalf("connection %d: response %q, reset %#x", i, resp, code)
		}
		clients[i] = c
		for _, c := range clients[:i] { // so that none waits long for its ACKs
			c.pump()
		}
	}
	for end := time.Now().Add(idleDwell); time.Now().Before(end); {
		for _, c := range clients {
			c.pump()
		}
		time.Sleep(10 * time.Millisecond)
	}
	after := serverHeap()
	t.Logf("%d idle HTTP/3 connections: %d bytes of server heap each", n, (after-before)/int64(n))
	if f := os.Getenv("GUST_H3_IDLE_PROFILE"); f != "" {
		w, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		pprof.Lookup("heap").WriteTo(w, 0)
		w.Close()
	}
	for i, c := range clients {
		if c.qc.Closed() {
			t.Fatalf("connection %d closed: %v", i, c.qc.Err())
		}
	}
}

// pump sends what the client owes and takes what has arrived, without
// waiting.
func (c *h3RawClient) pump() {
	now := time.Now()
	for {
		d, ok := c.qc.AppendDatagram(nil, now)
		if !ok {
			break
		}
		c.udp.Write(d)
	}
	c.udp.SetReadDeadline(now)
	for {
		n, err := c.udp.Read(c.buf)
		if err != nil {
			break
		}
		c.qc.Receive(c.buf[:n], now)
	}
	if t := c.qc.NextTimeout(); !t.IsZero() && !now.Before(t) {
		c.qc.OnTimeout(now)
	}
}

// serverHeap returns the bytes in use that were allocated on a stack
// through the server's HTTP/3 loop.
func serverHeap() int64 {
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+100)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	var sum int64
	for _, r := range recs {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			if strings.Contains(f.Function, "server.(*h3loop)") {
				sum += r.InUseBytes()
				break
			}
			if !more {
				break
			}
		}
	}
	return sum
}
