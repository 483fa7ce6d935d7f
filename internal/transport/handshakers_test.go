package transport

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// Which handshake goroutines countHandshakers counts.
const (
	allHandshakers     = iota
	waitingHandshakers // waiting for work
	busyHandshakers    // handshaking
)

// countHandshakers counts the handshake goroutines of a kind, in one look.
func countHandshakers(kind int) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("transport.handshaker(")) {
			continue
		}
		waiting := bytes.Contains(g, []byte("[select"))
		if kind == allHandshakers || (kind == waitingHandshakers) == waiting {
			n++
		}
	}
	return n
}

// waitGateIdle waits until no handshake holds a place in the gate, none
// queues and none is listed waiting: an earlier test's handshakes may
// still be leaving.
func waitGateIdle(t *testing.T) {
	t.Helper()
	g := &handshakeGate
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		idle := g.working == 0 && g.head == len(g.queue) && len(g.waiters) == 0
		working := g.working
		g.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the gate is not idle: %d handshakes hold a place", working)
		}
	}
}

// TestHandshakeGoroutinesAreReusedThenRetire: a handshake started while a
// handshake goroutine waits runs on it, not on a new goroutine, and an
// idle one exits after handshakerIdle.
func TestHandshakeGoroutinesAreReusedThenRetire(t *testing.T) {
	done := make(chan struct{})
	runHandshake(func() { leaveGate(); done <- struct{}{} })
	<-done
	for end := time.Now().Add(2 * time.Second); countHandshakers(waitingHandshakers) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no handshake goroutine waits after its handshake")
		}
	}
	// Tests here do not run in parallel: handshake goroutines can only
	// retire meanwhile, not start.
	before := countHandshakers(allHandshakers)
	running, release := make(chan int), make(chan struct{})
	runHandshake(func() {
		defer leaveGate()
		running <- countHandshakers(allHandshakers)
		<-release
	})
	during := <-running
	close(release)
	if during > before {
		t.Errorf("%d handshake goroutines while the second handshake runs, %d before: it got a new one", during, before)
	}
	for end := time.Now().Add(2 * time.Second); countHandshakers(waitingHandshakers) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no handshake goroutine waits after the second handshake")
		}
	}
	for end := time.Now().Add(handshakerIdle + 3*time.Second); countHandshakers(waitingHandshakers) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d handshake goroutines still wait %v after their last handshake", countHandshakers(waitingHandshakers), handshakerIdle+3*time.Second)
		}
	}
}

// TestHandshakeGateBoundsWorkingHandshakes: past maxWorkingHandshakes
// handshakes working at once, the next ones queue, holding no goroutine,
// and start in order as places are given up.
func TestHandshakeGateBoundsWorkingHandshakes(t *testing.T) {
	waitGateIdle(t)
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
	waitGateIdle(t)
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

// TestHandshakesWaitingPastTheGraceGiveTheirPlaceUp: handshakes that
// have sent their flight keep their places while their peers are silent,
// until others queue: then the stall check sends out those that waited
// gateGrace, and the queued ones start.
func TestHandshakesWaitingPastTheGraceGiveTheirPlaceUp(t *testing.T) {
	waitGateIdle(t)
	k := maxWorkingHandshakes()
	end := make(chan struct{})
	defer close(end)
	passes := make(chan *gatePass, k)
	for range k {
		runHandshake(func() {
			p := newGatePass()
			p.spoke = true // its flight is out; its peer says nothing
			p.waiting()
			passes <- p
			<-end
			p.done()
		})
	}
	held := make([]*gatePass, 0, k)
	for range k {
		held = append(held, <-passes)
	}
	time.Sleep(2 * gateGrace) // no one queues: they keep their places
	for i, p := range held {
		if !p.held.Load() {
			t.Fatalf("waiting handshake %d gave its place up with nobody queued", i)
		}
	}
	// Each queued one keeps the place it got until the test ends: k of
	// them start only if the k waiting ones gave theirs up.
	started := make(chan struct{}, k)
	for range k {
		runHandshake(func() { started <- struct{}{}; <-end; leaveGate() })
	}
	for i := range k {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d queued handshakes started", i, k)
		}
	}
	for i, p := range held {
		if p.held.Load() {
			t.Errorf("waiting handshake %d kept its place while others queued", i)
		}
	}
}
