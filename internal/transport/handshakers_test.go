package transport

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// goroutineID is the calling goroutine's number, from its stack's header.
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := bytes.Fields(buf)
	id, _ := strconv.Atoi(string(f[1]))
	return id
}

// waitingHandshakers counts the handshake goroutines waiting for work.
func waitingHandshakers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("[select")) && bytes.Contains(g, []byte("transport.handshaker(")) {
			n++
		}
	}
	return n
}

// TestHandshakeGoroutinesAreReusedThenRetire: a handshake started while a
// handshake goroutine waits runs on it, not on a new goroutine (goroutine
// numbers only grow: a new one's is above that of a goroutine started
// just before), and an idle one exits after handshakerIdle.
func TestHandshakeGoroutinesAreReusedThenRetire(t *testing.T) {
	ids := make(chan int, 2)
	runHandshake(func() { ids <- goroutineID() })
	<-ids
	for end := time.Now().Add(2 * time.Second); waitingHandshakers() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no handshake goroutine waits after its handshake")
		}
	}
	go func() { ids <- goroutineID() }()
	before := <-ids
	runHandshake(func() { ids <- goroutineID() })
	if second := <-ids; second > before {
		t.Errorf("the second handshake ran on a new goroutine (%d, started after %d)", second, before)
	}
	for end := time.Now().Add(handshakerIdle + 3*time.Second); waitingHandshakers() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d handshake goroutines still wait %v after their last handshake", waitingHandshakers(), handshakerIdle+3*time.Second)
		}
	}
}
