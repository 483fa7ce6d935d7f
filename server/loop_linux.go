//go:build linux

package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/mailbox"
	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/sys"
)

const (
	loopReadBuf = 64 << 10
	wheelTick   = int64(100 * time.Millisecond)
	// freshGrace is how long Shutdown leaves a new connection to send its
	// first request before closing it as idle (closeIdleConns).
	freshGrace = time.Second
)

// loop is one event loop: a listener, an epoll instance and the
// connections accepted on them. Its fields are grouped by who may touch
// them; a protocol's or a mode's own state sits in a struct of its own,
// embedded here, beside the code that uses it.
type loop struct {
	// Set by newLoop, never changed.
	e        *engine
	srv      *Server
	id       int
	poller   *poll.Poller
	minTimer int64 // the shortest timeout, for checking busy connections

	// The loop's own: touched only by the goroutine running the loop.
	lnfd   int
	events []poll.Event
	byFD   []*conn
	wheel  *timerWheel
	// seat is the goroutine running the loop's read buffer, output and
	// Ctx, and the dispatcher its handlers go through. In Auto mode a
	// handler that outlives its budget keeps its seat and the loop goes
	// on in a new goroutine with a new one.
	seat *seat
	err  error // what run returned, on the goroutine that ran it last

	acceptRetry   bool  // accept failed for want of descriptors: try again at the next tick
	lastAcceptLog int64 // when that was last logged, so a flood is not a log flood

	// The turn in progress, kept in the loop rather than on a goroutine's
	// stack so that a goroutine taking the loop over from a handler's
	// goroutine finishes it: the events not yet handled, and (later) the
	// sockets whose turn ended before they were drained, posted by the
	// loop itself.
	turnNow int64
	evNext  int
	later   mailbox.Box[*conn]
	// closingIdle: closeIdleConns is running (a handler it served may be
	// moved off the loop, and the loop's new goroutine starts it again).
	closingIdle bool
	// drain paces closeIdleConns over Config.DrainSpread (drain_linux.go).
	drain      drainPace
	lingerPace        // lingering connections and their read budget (linger_linux.go)
	streams    h2loop // HTTP/2 streams to start at the end of the turn (Auto), the fields scratch

	// The mailboxes other goroutines post to; each wakes the loop. A
	// batch is handed out from the box, not a stack: if a callback is
	// moved off the loop meanwhile (Auto mode), the goroutine the loop
	// goes on in hands out the rest.
	handoff  mailbox.Box[*conn] // connections workers gave back to be closed
	incoming mailbox.Box[int]   // sockets the accepting loop handed over (AcceptOne)
	posts    mailbox.Box[*conn] // connections whose protocol has posts from other goroutines (post)

	// mu guards stopped alone: shutdownAll holds it while it closes the
	// mailboxes and looks at every connection, so that a worker that
	// finds the loop stopped (giveBack, closeIfStopped) closes its
	// connection itself, and only once shutdownAll is done with it.
	mu      sync.Mutex
	stopped bool

	// Atomics other goroutines set or read.
	closeIdleReq atomic.Bool  // Shutdown asks the loop to close its idle connections
	conns        atomic.Int64 // connections this loop holds, for tests and balance checks

	h3 *h3loop // HTTP/3 (Config.HTTP3): the loop's UDP socket and QUIC connections; nil without

	autoLoop // Auto mode's side of the loop (auto_linux.go)
	tlsLoop  // handshakes that ended, in their mailbox, and resting keys (tls_linux.go)
}

func newLoop(e *engine, id int, p *poll.Poller, lnfd int) *loop {
	if lnfd >= 0 {
		e.listening.Add(1)
	}
	cfg := &e.srv.cfg
	minTimer := min(cfg.ReadHeaderTimeout, cfg.ReadTimeout, cfg.WriteTimeout, cfg.IdleTimeout)
	l := &loop{
		e: e, srv: e.srv, id: id, poller: p, lnfd: lnfd,
		events:   make([]poll.Event, 0, 1024),
		minTimer: int64(minTimer),
	}
	l.turnNow = e.now()
	l.wheel = newTimerWheel(wheelTick, l.turnNow)
	if cfg.Mode == Auto {
		l.yieldEvery = int64(time.Millisecond)
	}
	l.seat = newSeat(l)
	l.seatNow.Store(l.seat)
	wake := p.Wake
	l.handoff.Init(wake)
	l.incoming.Init(wake)
	l.posts.Init(wake)
	l.shaken.Init(wake)
	return l
}

// dispatcher returns where the loop's handlers run: its seat's
// dispatcher, which Config.Mode chose.
func (l *loop) dispatcher() dispatcher { return l.seat.site.dispatch }

// run turns the loop until it stops: it finishes the turn in progress
// (all of it, for a goroutine that took the loop over mid-turn), then
// waits for events and takes the next.
func (l *loop) run() error {
	for {
		l.finishTurn()
		if l.e.stopping.Load() {
			l.shutdownAll()
			return nil
		}
		if l.e.draining.Load() && l.lnfd >= 0 {
			l.closeListener()
		}
		if l.closeIdleReq.Swap(false) {
			l.closeIdleConns()
		}
		var err error
		lingerDue := l.lingerWakeAt > 0 && l.lingerWakeAt <= l.turnNow
		if l.later.Pending() || l.streams.pending() || lingerDue || l.h3 != nil && l.h3.more {
			// Sockets wait for their next turn, or streams (queued by
			// closeIdleConns' reads) to start, or lingering sockets have
			// budget left: look for events, do not wait.
			l.events, err = l.poller.Poll(l.events[:0])
		} else {
			wakeAt := l.wheel.next
			if l.lingerWakeAt > 0 {
				wakeAt = min(wakeAt, l.lingerWakeAt) // lingering sockets wait for their budget
			}
			if l.h3 != nil {
				if at := l.h3.wakeAt(); at > 0 {
					wakeAt = min(wakeAt, at) // QUIC's timers, to the millisecond
				}
			}
			if l.srv.cfg.LoopsOwnThreads {
				l.events, err = l.poller.WaitOwnThread(l.events[:0], max(0, time.Duration(wakeAt-l.e.now())))
			} else {
				l.events, err = l.poller.WaitParked(l.events[:0], l.e.base.Add(time.Duration(wakeAt)))
			}
		}
		if err != nil {
			l.shutdownAll()
			return err
		}
		l.turnNow = l.e.now()
		l.evNext = 0
		if l.yieldEvery > 0 && l.turnNow-l.lastYield >= l.yieldEvery {
			// A loop that always finds events never parks, and its system
			// calls are raw: let the goroutines it woke (handlers that
			// waited, on workers) run within a millisecond, not at the
			// runtime's 10 ms preemption. Without any, there is no one to
			// yield to.
			l.lastYield = l.turnNow
			if l.srv.workers.busy.Load() > 0 || l.srv.movedNow.Load() > 0 {
				runtime.Gosched()
			}
		}
	}
}

// finishTurn handles the events of the turn not yet handled, gives the
// connections queued for another read their turn, starts the HTTP/2
// streams they brought (Auto mode), and does the loop's chores.
func (l *loop) finishTurn() {
	now := l.turnNow
	for l.evNext < len(l.events) {
		ev := l.events[l.evNext]
		l.evNext++
		fd := int(ev.FD)
		if fd == l.lnfd {
			l.accept(now)
			continue
		}
		if l.h3 != nil && fd == l.h3.fd {
			l.h3.readable(now)
			continue
		}
		if fd < len(l.byFD) {
			if c := l.byFD[fd]; c != nil {
				l.handle(c, ev.Flags, now)
			}
		}
	}
	l.readTheRest(now)
	l.takeHandoffs()
	l.takeHandshakes(now)
	l.takePosts(now)
	if l.e.acceptOne { // only then do other loops hand sockets over
		l.takeIncoming(now)
	}
	if l.acceptRetry && l.lnfd >= 0 && now >= l.wheel.next {
		l.acceptRetry = false
		l.accept(now)
	}
	if l.streams.pending() {
		l.streams.run(now) // Auto mode's HTTP/2 streams, once the turn's reads are in
	}
	l.discardSome(now)
	l.wheel.advance(now)
	l.quietSome(now)
	if l.h3 != nil {
		if l.h3.more {
			l.h3.readable(now) // the rest of a flood, after the turn's other work
		}
		l.h3.turn(now)
	}
}

func (l *loop) accept(now int64) {
	s := l.srv
	for {
		fd, err := sys.Accept4(l.lnfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			switch err {
			case unix.EAGAIN:
				return
			case unix.EINTR, unix.ECONNABORTED:
				continue
			}
			// EMFILE and friends: the connections waiting in the backlog
			// bring no new edge, so retry at the next tick (the wheel
			// wakes the loop every 100 ms) rather than at the next
			// arrival, which may never come.
			l.acceptRetry = true
			if now-l.lastAcceptLog >= int64(time.Second) || l.lastAcceptLog == 0 {
				l.lastAcceptLog = now
				s.cfg.ErrorLog.Printf("gust/server: accept: %v; retrying every %v", err, time.Duration(wheelTick))
			}
			return
		}
		if s.cfg.MaxConns > 0 && s.counters.open.Load() >= int64(s.cfg.MaxConns) {
			s.counters.rejected.Add(1) // before the close, which the client may see at once
			unix.Close(fd)
			continue
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		s.counters.open.Add(1)
		s.counters.accepted.Add(1)
		if dst := l.e.pickLoop(l); dst != l {
			dst.adopt(fd)
			continue
		}
		l.register(fd, now)
	}
}

// readLater queues c, whose turn ended with bytes maybe left in its
// socket, to be read once the current events are handled: with
// edge-triggered polling no event would bring it back.
func (l *loop) readLater(c *conn, hangup bool) {
	c.laterHangup = c.laterHangup || hangup
	if !c.later {
		c.later = true
		l.later.Post(c)
	}
}

// readTheRest gives the queued connections their next turn.
func (l *loop) readTheRest(now int64) {
	l.later.Take() // resumes a batch a goroutine moved off the loop left
	for c, ok := l.later.Next(); ok; c, ok = l.later.Next() {
		c.later = false
		hangup := c.laterHangup
		c.laterHangup = false
		if c.state.Load() == stIdle && !c.blocked {
			l.readTurn(c, hangup, now)
		}
	}
}

// register makes the accepted socket fd a connection of this loop.
func (l *loop) register(fd int, now int64) {
	if err := l.poller.Add(fd); err != nil {
		unix.Close(fd)
		l.srv.counters.open.Add(-1)
		return
	}
	c := newConn(l, fd)
	c.fresh, c.reqStart = true, now
	for fd >= len(l.byFD) {
		l.byFD = append(l.byFD, make([]*conn, len(l.byFD)+1024)...)
	}
	l.byFD[fd] = c
	l.conns.Add(1)
	l.setDeadline(c, now+int64(l.srv.cfg.ReadHeaderTimeout))
	if l.srv.tlsConf != nil {
		l.startTLS(c)
	}
}

// adopt queues a socket another loop accepted (AcceptOne) for this one.
func (l *loop) adopt(fd int) {
	if !l.incoming.Post(fd) { // the loop has stopped
		unix.Close(fd)
		l.srv.counters.open.Add(-1)
	}
}

// takeIncoming registers the sockets other loops handed over.
func (l *loop) takeIncoming(now int64) {
	l.incoming.Take()
	for fd, ok := l.incoming.Next(); ok; fd, ok = l.incoming.Next() {
		l.register(fd, now)
	}
}

// setDeadline sets a loop-owned connection's deadline and its wheel slot.
func (l *loop) setDeadline(c *conn, at int64) {
	c.deadline.Store(at)
	l.wheel.schedule(&c.we, at)
}

// giveBack is how a worker returns a connection that must be closed.
func (l *loop) giveBack(c *conn) {
	if l.handoff.Post(c) {
		return
	}
	// The loop has gone: the worker that owns c closes it, under the
	// lock, which shutdownAll holds until it is done with every
	// connection, so that it never touches a closed descriptor.
	l.mu.Lock()
	if c.state.CompareAndSwap(stBusy, stClosed) || c.state.CompareAndSwap(stBusyEvent, stClosed) {
		unix.Close(c.fd)
		c.release()
		c.forget()
	}
	l.mu.Unlock()
}

// closeIfStopped closes c, which a worker has just made idle, if the loop
// has already stopped and so will never look at it again.
func (l *loop) closeIfStopped(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped && c.state.CompareAndSwap(stIdle, stClosed) {
		unix.Close(c.fd)
		c.release()
		c.forget()
	}
}

// wake interrupts the loop's wait, unless the loop has stopped and closed
// its poller.
func (l *loop) wake() {
	l.mu.Lock()
	if !l.stopped {
		l.poller.Wake()
	}
	l.mu.Unlock()
}

// takeHandoffs closes the connections workers gave back, and unlearns
// the routes whose handlers were moved off but did not wait.
func (l *loop) takeHandoffs() {
	l.blips.Take()
	for r, ok := l.blips.Next(); ok; r, ok = l.blips.Next() {
		l.routes.blip(r)
	}
	l.handoff.Take()
	for c, ok := l.handoff.Next(); ok; c, ok = l.handoff.Next() {
		l.closeAfterResponse(c)
	}
}

// forget takes c off the open connections count, unless a handler
// hijacked it (then Hijack did).
func (c *conn) forget() {
	if !c.hijacked.Load() {
		c.l.srv.counters.open.Add(-1)
	}
}

// closeConn closes a connection this loop owns.
func (l *loop) closeConn(c *conn) {
	if c.state.Swap(stClosed) == stClosed {
		return
	}
	l.wheel.remove(&c.we)
	l.byFD[c.fd] = nil
	l.conns.Add(-1)
	if c.tls != nil {
		c.endTLS()
	}
	unix.Close(c.fd)
	c.release()
	c.forget()
}

// closeListener stops the loop's accepting. The socket leaves the poller
// first: a successor that inherited it (ListenerFiles) keeps it open, and
// the poller would otherwise go on reporting it under a number this
// process may give to a connection. ListenerFiles reads lnfd under the
// same lock.
func (l *loop) closeListener() {
	l.e.lnMu.Lock()
	defer l.e.lnMu.Unlock()
	if l.lnfd >= 0 {
		l.poller.Remove(l.lnfd)
		unix.Close(l.lnfd)
		l.lnfd = -1
		l.e.listening.Add(-1)
	}
}

// shutdownAll closes everything at once. Connections busy in a worker are
// shut down, so the worker's next write fails, and closed by the worker.
func (l *loop) shutdownAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	// Closed boxes take no more posts, so nothing wakes the poller once
	// it is closed below.
	l.posts.Close()
	l.shaken.Close()
	l.blips.Close()
	for _, c := range l.handoff.Close() {
		l.closeConn(c)
	}
	for _, fd := range l.incoming.Close() {
		unix.Close(fd)
		l.srv.counters.open.Add(-1)
	}
	for _, c := range l.byFD {
		if c == nil {
			continue
		}
		if c.state.Load() == stIdle {
			l.closeConn(c) // a worker giving it back at this moment no longer touches it
			continue
		}
		// Busy in a worker: holding l.mu keeps the worker from closing the
		// descriptor (giveBack), so it is still this connection's. Shutting
		// it down makes the worker's next write fail, and it closes it.
		if st := c.state.Load(); (st == stBusy || st == stBusyEvent) && !c.hijacked.Load() {
			unix.Shutdown(c.fd, unix.SHUT_RDWR)
			// Wake a worker waiting to write, and end an adapter request's
			// context, so that nothing waits out its timeout.
			if c.waiting.Load() {
				select {
				case c.ready <- struct{}{}:
				default:
				}
			}
			c.cancelRequest()
		}
	}
	l.closeListener()
	if l.h3 != nil {
		l.h3.closeAll(l.e.now())
	}
	l.poller.Close()
}
