package transport

import (
	"bytes"
	"crypto/tls"
	"runtime"
	"testing"
	"time"
)

// handshakers counts the handshake goroutines: all of them, or only those
// waiting for work.
func handshakers(waitingOnly bool) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("transport.handshaker(")) && (!waitingOnly || bytes.Contains(g, []byte("[select"))) {
			n++
		}
	}
	return n
}

func waitingHandshakers() int { return handshakers(true) }

// TestHandshakeGoroutinesAreReusedThenRetire: a handshake started while a
// handshake goroutine waits runs on it, not on a new goroutine, and an
// idle one exits after handshakerIdle.
func TestHandshakeGoroutinesAreReusedThenRetire(t *testing.T) {
	done := make(chan struct{})
	runHandshake(func() { leaveGate(); done <- struct{}{} })
	<-done
	for end := time.Now().Add(2 * time.Second); waitingHandshakers() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no handshake goroutine waits after its handshake")
		}
	}
	// Tests here do not run in parallel: handshake goroutines can only
	// retire meanwhile, not start.
	before := handshakers(false)
	running, release := make(chan int), make(chan struct{})
	runHandshake(func() {
		defer leaveGate()
		running <- handshakers(false)
		<-release
	})
	during := <-running
	close(release)
	if during > before {
		t.Errorf("%d handshake goroutines while the second handshake runs, %d before: it got a new one", during, before)
	}
	for end := time.Now().Add(2 * time.Second); waitingHandshakers() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no handshake goroutine waits after the second handshake")
		}
	}
	for end := time.Now().Add(handshakerIdle + 3*time.Second); waitingHandshakers() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d handshake goroutines still wait %v after their last handshake", waitingHandshakers(), handshakerIdle+3*time.Second)
		}
	}
}

// TestHandshakeGateBoundsWorkingHandshakes: past maxWorkingHandshakes
// handshakes working at once, the next ones queue, holding no goroutine,
// and start in order as places are given up.
func TestHandshakeGateBoundsWorkingHandshakes(t *testing.T) {
	defer func(d time.Duration) { gateStallCheck = d }(gateStallCheck)
	gateStallCheck = time.Hour // no stall check within the test
	k := maxWorkingHandshakes()
	started := make(chan int, k+3)
	leave := make(chan struct{})
	for i := range k + 3 {
		runHandshake(func() {
			started <- i
			<-leave
			leaveGate()
		})
	}
	for range k {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatalf("fewer than %d handshakes started", k)
		}
	}
	select {
	case i := <-started:
		t.Fatalf("handshake %d started while %d held the gate", i, k)
	case <-time.After(100 * time.Millisecond):
	}
	defer close(leave)
	for want := k; want < k+3; want++ {
		leave <- struct{}{} // one place given up: the next queued starts
		select {
		case i := <-started:
			if i != want {
				t.Errorf("queued handshake %d started, want %d (in order)", i, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("queued handshake %d did not start once places were given up", want)
		}
	}
}

// TestHandshakeGateLetsOneMoreInWhenNoneLeaves: handshakes that hold
// their places and never give them up (stuck in a certificate fetch, say)
// do not stop the queue: one more gets in each stall check.
func TestHandshakeGateLetsOneMoreInWhenNoneLeaves(t *testing.T) {
	k := maxWorkingHandshakes()
	stuck := make(chan struct{})
	defer close(stuck)
	for range k {
		runHandshake(func() { <-stuck; leaveGate() })
	}
	ran := make(chan struct{})
	runHandshake(func() { leaveGate(); close(ran) })
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("a queued handshake did not start while the gate's holders were stuck")
	}
}

// TestAFloodOfHandshakesKeepsFewGoroutines: hundreds of TLS connections
// whose clients (crypto/tls, on goroutines of their own) all send their
// ClientHello at once are handshaken by a few goroutines at a time, not
// one each: each keeps its place while its client answers.
func TestAFloodOfHandshakesKeepsFewGoroutines(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("400 handshakes: not under -short or -race")
	}
	const n = 400
	ln := newListener(t)
	cfg := serverConfig(t, tls.VersionTLS13)
	ends := make(chan error, n)
	for range n {
		fd, peer := ln.pair(t)
		defer peer.Close()
		client := tls.Client(peer, clientConfig(t, tls.VersionTLS13))
		go client.Handshake()
		s := NewServerTLS(NewPlain(fd), cfg)
		defer s.Release()
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
			peak = max(peak, handshakers(false))
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d handshakes ended in 20s", done, n)
			}
		}
	}
	t.Logf("%d handshakes at once: at most %d handshake goroutines seen (the gate's bound %d)", n, peak, maxWorkingHandshakes())
	if peak > n/4 {
		t.Errorf("%d handshake goroutines for %d handshakes at once: the gate does not bound them", peak, n)
	}
}
