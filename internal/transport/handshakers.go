package transport

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Handshake goroutines are kept for a while after their handshake, and the
// next handshake runs on one that is waiting. crypto/tls's handshake needs
// a deeper stack than a new goroutine starts with: measured on a server
// doing only new TLS connections, about 6% of its CPU went to growing
// fresh stacks (runtime.newstack, copystack), which a goroutine that has
// already handshaken does not pay again.
//
// Handshakes that work at once are bounded (handshakeGate); handshakes
// waiting for their peer are not: a stalled handshake must never hold up
// another.

// handshakerIdle is how long a handshake goroutine waits for the next.
const handshakerIdle = time.Second

// handshakeTasks hands a handshake to a goroutine waiting on it.
var handshakeTasks = make(chan func())

// timerPool keeps the idle timers of the waiting goroutines.
var timerPool = sync.Pool{New: func() any { return time.NewTimer(handshakerIdle) }}

// handshakeGate bounds the handshakes that work (compute, or read what
// their peer has sent) at once; more wait in its queue, holding no
// goroutine. A handshake gives its place up when it has waited gateGrace
// for its peer (gatePass) and does not take it back: the gate is about a
// flood of new connections, whose peers answer at once. Unbounded,
// 15,000 connections opened at once made about 14,000 handshake
// goroutines, each with a stack grown to the handshake's depth; the
// runtime keeps every goroutine's record (about 0.4 KB) for good, and the
// stacks' memory until it scavenges it, and the loops shared their cores
// with thousands of runnable handshakes.
//
// A handshake may also wait inside crypto/tls for something else than its
// peer (a GetCertificate that fetches a certificate): so while handshakes
// queue, a check every gateStallCheck lets one more in if none left the
// gate since the last check.
var handshakeGate gateState

// gateState is handshakeGate's.
type gateState struct {
	mu       sync.Mutex
	working  int
	queue    []func() // FIFO: queue[head:]
	head     int
	left     uint64      // handshakes that left the gate, ever
	leftSeen uint64      // left at the last stall check
	checking *time.Timer // the stall check, while handshakes queue; nil otherwise
}

// gateStallCheck is how often the gate checks that handshakes leave it
// while others queue (a variable for tests).
var gateStallCheck = 10 * time.Millisecond

// maxWorkingHandshakes is the gate's bound: enough to keep every core
// busy while some handshakes wait for their peer's next flight.
func maxWorkingHandshakes() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// runHandshake runs f (a handshake, whose gatePass leaves the gate) once
// the gate lets it.
func runHandshake(f func()) {
	g := &handshakeGate
	g.mu.Lock()
	if g.working >= maxWorkingHandshakes() {
		g.queue = append(g.queue, f)
		if g.checking == nil {
			g.leftSeen = g.left
			g.checking = time.AfterFunc(gateStallCheck, checkGate)
		}
		g.mu.Unlock()
		return
	}
	g.working++
	g.mu.Unlock()
	startHandshake(f)
}

// leaveGate gives up a handshake's place in the gate: the next queued
// handshake starts.
func leaveGate() {
	g := &handshakeGate
	g.mu.Lock()
	g.left++
	if g.head == len(g.queue) {
		g.working--
		g.mu.Unlock()
		return
	}
	f := g.dequeue()
	g.mu.Unlock()
	startHandshake(f) // it takes the place
}

// checkGate is the stall check: if no handshake left the gate since the
// last one while others queue, the next one queued gets in beyond the
// bound. It runs again while handshakes queue.
func checkGate() {
	g := &handshakeGate
	g.mu.Lock()
	if g.head == len(g.queue) {
		g.checking = nil
		g.mu.Unlock()
		return
	}
	var f func()
	if g.left == g.leftSeen {
		g.working++
		f = g.dequeue()
	}
	g.leftSeen = g.left
	if g.checking != nil {
		g.checking.Reset(gateStallCheck)
	}
	g.mu.Unlock()
	if f != nil {
		startHandshake(f)
	}
}

// dequeue takes the first queued handshake; the gate's mu is held and
// the queue is not empty.
func (g *gateState) dequeue() func() {
	f := g.queue[g.head]
	g.queue[g.head] = nil
	g.head++
	if g.head == len(g.queue) {
		g.queue, g.head = g.queue[:0], 0
		if g.checking != nil {
			g.checking.Stop()
			g.checking = nil
		}
	}
	return f
}

// gatePass is a handshake's place in handshakeGate. Once it has sent its
// flight, a handshake keeps it while it waits for its peer's answer, up to
// gateGrace (the answer is usually that close, and a handshake that gave
// its place up goes on outside the gate, a goroutine more), then gives it
// up. Before it has sent anything (a server waiting for a ClientHello) it
// gives it up at once: a peer that connects and stalls holds no place,
// and one that stalls after its ClientHello made the server do a key
// exchange first.
type gatePass struct {
	held  atomic.Bool
	spoke bool        // the handshake wrote to its peer (the handshake goroutine's)
	grace *time.Timer // armed while waiting for the peer
}

// gateGrace is how long a handshake waiting for its peer keeps its place.
const gateGrace = 20 * time.Millisecond

func newGatePass() *gatePass {
	p := &gatePass{}
	p.held.Store(true)
	return p
}

// leave gives the place up, once (the grace timer and the handshake's end
// may both try).
func (p *gatePass) leave() {
	if p.held.CompareAndSwap(true, false) {
		leaveGate()
	}
}

// waiting: the handshake waits for its peer; the place is given up after
// gateGrace unless bytes come first (woke).
func (p *gatePass) waiting() {
	if !p.held.Load() {
		return
	}
	if !p.spoke {
		p.leave()
		return
	}
	if p.grace == nil {
		p.grace = time.AfterFunc(gateGrace, p.leave)
	} else {
		p.grace.Reset(gateGrace)
	}
}

// woke: the peer's bytes came.
func (p *gatePass) woke() {
	if p.grace != nil {
		p.grace.Stop()
	}
}

// done: the handshake ended.
func (p *gatePass) done() {
	p.woke()
	p.leave()
}

// startHandshake runs f on a waiting handshake goroutine, or on a new one.
func startHandshake(f func()) {
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
