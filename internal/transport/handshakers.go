package transport

import (
	"sync"
	"time"
)

// Handshake goroutines are kept for a while after their handshake, and the
// next handshake runs on one that is waiting. crypto/tls's handshake needs
// a deeper stack than a new goroutine starts with: measured on a server
// doing only new TLS connections, about 6% of its CPU went to growing
// fresh stacks (runtime.newstack, copystack), which a goroutine that has
// already handshaken does not pay again. The goroutines are not bounded in
// number (a stalled handshake must never hold up another), only in idle
// time.

// handshakerIdle is how long a handshake goroutine waits for the next.
const handshakerIdle = time.Second

// handshakeTasks hands a handshake to a goroutine waiting on it.
var handshakeTasks = make(chan func())

// timerPool keeps the idle timers of the waiting goroutines.
var timerPool = sync.Pool{New: func() any { return time.NewTimer(handshakerIdle) }}

// runHandshake runs f on a waiting handshake goroutine, or on a new one.
func runHandshake(f func()) {
	select {
	case handshakeTasks <- f:
	default:
		go handshaker(f)
	}
}

// handshaker runs f, then the handshakes given to it until it has waited
// handshakerIdle for one.
func handshaker(f func()) {
	t := timerPool.Get().(*time.Timer)
	defer timerPool.Put(t)
	for {
		f()
		f = nil
		t.Reset(handshakerIdle)
		select {
		case f = <-handshakeTasks:
			t.Stop()
		case <-t.C:
			return
		}
	}
}
