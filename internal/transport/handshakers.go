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
// goroutine. A handshake gives its place up when it waits for its peer
// (at once, or after gateGrace while others queue: gatePass) and does not
// take it back: the gate is about a flood of new connections, whose peers
// answer at once. Unbounded,
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
	// waiters are the handshakes keeping their place while they wait for
	// their peer (gatePass.slot is the index): the stall check sends
	// those that waited past gateGrace out.
	waiters []*gatePass
}

// gateStallCheck is how often the gate checks that handshakes leave it
// while others queue (a variable for tests).
var gateStallCheck = 10 * time.Millisecond

// maxWorkingHandshakes is the gate's bound: enough to keep every core
// busy while handshakes wait for their peers' next flights (with 8 on one
// core, resumed TLS 1.2 handshakes, 140 us of CPU each, waited on wrk's
// answers: 0.84x the handshakes per second of no gate), and few enough
// that a flood costs a few hundred kilobytes of stacks, not hundreds of
// megabytes.
func maxWorkingHandshakes() int { return max(32, 8*runtime.GOMAXPROCS(0)) }

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
	// Waiters past their grace go out: each lets a queued one in.
	var late []*gatePass
	now := time.Now().UnixNano()
	for i := 0; i < len(g.waiters); {
		if w := g.waiters[i]; now-w.since >= int64(gateGrace) {
			g.dropWaiter(w)
			late = append(late, w)
			continue // another took index i
		}
		i++
	}
	var f func()
	if len(late) == 0 && g.left == g.leftSeen {
		g.working++
		f = g.dequeue()
	}
	g.leftSeen = g.left + uint64(len(late))
	if g.checking != nil {
		g.checking.Reset(gateStallCheck)
	}
	g.mu.Unlock()
	for _, w := range late {
		w.leave()
	}
	if f != nil {
		startHandshake(f)
	}
}

// dropWaiter takes p off the waiters; the gate's mu is held.
func (g *gateState) dropWaiter(p *gatePass) {
	last := len(g.waiters) - 1
	g.waiters[p.slot] = g.waiters[last]
	g.waiters[p.slot].slot = p.slot
	g.waiters[last] = nil
	g.waiters = g.waiters[:last]
	p.slot = -1
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
// flight, a handshake keeps it while it waits for its peer's answer (the
// answer is usually close, and a handshake that gave its place up goes on
// outside the gate, a goroutine more); while others queue, the stall
// check sends it out once it has waited gateGrace. Before it has sent
// anything (a server waiting for a ClientHello) it gives its place up at
// once: a peer that connects and stalls holds no place, and one that
// stalls after its ClientHello made the server do a key exchange first.
// (No timer per handshake: the stall check runs only while handshakes
// queue, and holding a place costs nobody anything otherwise.)
type gatePass struct {
	held atomic.Bool
	// The handshake goroutine's: spoke, it wrote to its peer; listed, it
	// put itself on the gate's waiters (the stall check may have taken
	// it off since).
	spoke, listed bool
	// Under the gate's mu: the index in its waiters (-1 when not on
	// them), and when the wait began (Unix ns).
	slot  int
	since int64
}

// gateGrace is how long a handshake waiting for its peer keeps its place
// while others queue (the stall check's period coarsens it).
const gateGrace = 20 * time.Millisecond

func newGatePass() *gatePass {
	p := &gatePass{slot: -1}
	p.held.Store(true)
	return p
}

// leave gives the place up, once (the stall check and the handshake's end
// may both try).
func (p *gatePass) leave() {
	if p.held.CompareAndSwap(true, false) {
		leaveGate()
	}
}

// waiting: the handshake waits for its peer.
func (p *gatePass) waiting() {
	if !p.held.Load() {
		return
	}
	if !p.spoke {
		p.leave()
		return
	}
	g := &handshakeGate
	g.mu.Lock()
	if p.slot < 0 && p.held.Load() {
		p.slot, p.since = len(g.waiters), time.Now().UnixNano()
		g.waiters = append(g.waiters, p)
		p.listed = true
	}
	g.mu.Unlock()
}

// woke: the peer's bytes came.
func (p *gatePass) woke() {
	if !p.listed {
		return
	}
	p.listed = false
	g := &handshakeGate
	g.mu.Lock()
	if p.slot >= 0 {
		g.dropWaiter(p)
	}
	g.mu.Unlock()
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
