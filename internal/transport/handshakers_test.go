package transport

import (
	"bytes"
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
	runHandshake(func() { done <- struct{}{} })
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
