//go:build linux

package transport

import (
	"crypto/tls"
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTLSStalledHandshakesHoldNoRecordBuffer opens connections that send
// half a ClientHello and stall, and measures what each waiting handshake
// costs (heap and goroutine stack): no 32 KiB record buffer, and every one
// ends at its deadline.
func TestTLSStalledHandshakesHoldNoRecordBuffer(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("not under -short or -race")
	}
	const n = 500
	ln := newListener(t)
	cfg := serverConfig(t, tls.VersionTLS13)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	deadline := time.Now().Add(3 * time.Second)
	conns := make([]*TLS, n)
	fds := make([]int, n)
	ends := make(chan error, n)
	for i := range conns {
		fd, peer := ln.pair(t)
		defer peer.Close()
		fds[i] = fd
		conns[i] = NewServerTLS(NewPlain(fd), cfg)
		conns[i].Handshake(deadline, func(c *TLS) { _, err := c.HandshakeDone(); ends <- err })
		peer.Write([]byte{0x16, 3, 1, 2, 0, 1, 0, 1, 0xfc, 3, 3}) // a 512-byte record, 6 bytes of it
	}
	// Every handshake reads its 11 bytes (none are left in its socket) and
	// waits, its place in the gate given up.
	waitUntil(t, 2*time.Second, "every handshake read its bytes", func() bool {
		for _, fd := range fds {
			if queued(t, fd, unix.SIOCINQ) != 0 {
				return false
			}
		}
		return true
	})
	waitGateIdle(t)
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc-before.HeapAlloc) / n
	stack := float64(after.StackInuse-before.StackInuse) / n
	t.Logf("a stalled handshake holds %.0f heap bytes and %.0f bytes of goroutine stack (%d stalled)", heap, stack, n)
	if heap > inBufSize {
		t.Errorf("%.0f heap bytes per stalled handshake: a record buffer is held", heap)
	}
	for range conns {
		if err := <-ends; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("stalled handshake ended with %v, want the deadline", err)
		}
	}
	for _, c := range conns {
		c.Release()
	}
}

// TestTLSStalledHandshakesGiveTheGateUp: more connections than the
// handshake gate's places send nothing; their handshakes wait for their
// peers outside the gate, and a connection that handshakes gets in at
// once (the gate's stall check, which would let it in anyway, is off).
func TestTLSStalledHandshakesGiveTheGateUp(t *testing.T) {
	defer func(d time.Duration) { gateStallCheck = d }(gateStallCheck)
	gateStallCheck = time.Hour
	ln := newListener(t)
	cfg := serverConfig(t, tls.VersionTLS13)
	deadline := time.Now().Add(10 * time.Second)
	for range maxWorkingHandshakes() + 4 {
		fd, peer := ln.pair(t)
		defer peer.Close()
		s := NewServerTLS(NewPlain(fd), cfg)
		defer s.Release()
		s.Handshake(deadline, func(*TLS) {})
	}
	a, b := ln.rawPair(t)
	s := NewServerTLS(NewPlain(a), cfg)
	c := NewClientTLS(NewPlain(b), clientConfig(t, tls.VersionTLS13))
	defer s.Release()
	defer c.Release()
	ends := make(chan error, 2)
	for _, x := range []*TLS{s, c} {
		x.Handshake(deadline, func(x *TLS) { _, err := x.HandshakeDone(); ends <- err })
	}
	for range 2 {
		select {
		case err := <-ends:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("a handshake behind %d stalled ones did not end in 5s: they hold the gate", maxWorkingHandshakes()+4)
		}
	}
}

// TestAFloodOfHandshakesKeepsFewGoroutines: hundreds of TLS connections
// whose clients (crypto/tls, on goroutines of their own) have all sent
// their ClientHello are handshaken by a few goroutines at a time, not one
// each: each keeps its place while its client answers.
func TestAFloodOfHandshakesKeepsFewGoroutines(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("400 handshakes: not under -short or -race")
	}
	const n = 400
	waitGateIdle(t)
	ln := newListener(t)
	cfg := serverConfig(t, tls.VersionTLS13)
	ends := make(chan error, n)
	servers := make([]*TLS, n)
	fds := make([]int, n)
	for i := range servers {
		fd, peer := ln.pair(t)
		defer peer.Close()
		fds[i] = fd
		client := tls.Client(peer, clientConfig(t, tls.VersionTLS13))
		go client.Handshake()
		servers[i] = NewServerTLS(NewPlain(fd), cfg)
		defer servers[i].Release()
	}
	// The clients' ClientHellos (a key share each: the storm of CPU here)
	// are sent before the servers start, so that the clients then only
	// answer, as peers elsewhere do: each server's socket has its client's.
	for _, fd := range fds {
		waitFD(t, fd, unix.POLLIN)
	}
	for _, s := range servers {
		s.Handshake(time.Now().Add(20*time.Second), func(c *TLS) { _, err := c.HandshakeDone(); ends <- err })
	}
	peak := 0
	deadline := time.Now().Add(20 * time.Second)
	for done := 0; done < n; {
		select {
		case err := <-ends:
			if err != nil {
				t.Fatal(err)
			}
			done++
		case <-time.After(2 * time.Millisecond):
			peak = max(peak, countHandshakers(busyHandshakers))
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d handshakes ended in 20s", done, n)
			}
		}
	}
	t.Logf("%d handshakes at once: at most %d handshake goroutines handshaking at once (the gate's bound %d)", n, peak, maxWorkingHandshakes())
	if peak > n/4 {
		t.Errorf("%d handshake goroutines for %d handshakes at once: the gate does not bound them", peak, n)
	}
}
