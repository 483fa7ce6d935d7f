//go:build linux

package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/mailbox"
	"github.com/gust-http/gust/internal/websocket"
)

// Auto mode on Linux: handlers start on their loop; one that outlives its
// budget keeps the goroutine it started on, with that goroutine's seat,
// and the loop goes on in a new goroutine with a new seat.
//
// The hand-over: the loop counts handlers in hseq (odd while one runs,
// one atomic add before the handler and one compare-and-swap after).
// Whoever moves a handler off (the watchdog, or the handler's own
// goroutine when it is about to wait on the network: Flush, Hijack, a
// runtime.Goexit) wins a compare-and-swap of that count, marks the
// connection busy (a worker's, to the loop), starts the loop's new
// goroutine and then tells the handler's goroutine so (seat.handed). The
// handler's goroutine, whose own compare-and-swap fails when the handler
// returns, waits for that word, finishes the connection as a worker
// would, and exits. The loop's turn (its events, its queue of sockets to
// read again) lives in the loop, not on a stack, so the new goroutine
// finishes it.
//
// An HTTP/2 stream's handler moves the same way (h2auto_linux.go), except
// that its connection stays the loop's: the moved handler posts its
// response to the loop as a worker does, and the loop never learns the
// connection was involved.

// autoLoop is Auto mode's side of a loop, embedded in loop.
type autoLoop struct {
	// seatNow is the loop's seat, for the watchdog (another goroutine).
	seatNow atomic.Pointer[seat]
	// hseq counts handlers entered and left on the loop: odd while one
	// runs. The watchdog moves a handler it sees running at two ticks in
	// a row off the loop.
	hseq   atomic.Uint64
	routes routeTable // which routes wait: the loop's
	// blips are the routes whose handlers were moved off but did not
	// wait, posted by their goroutines for the loop to unlearn.
	blips mailbox.Box[uint32]
	// yieldEvery is how often a loop that never runs out of events
	// yields its P; lastYield is when it last did. The loop's.
	yieldEvery, lastYield int64
}

// seat is what a goroutine running a loop works with, and keeps if its
// handler is moved off: the read buffer, the output, the Ctx and the site
// its steps run at, and, for the watchdog, the handler in progress.
type seat struct {
	l    *loop
	buf  []byte
	out  []byte
	ctx  *Ctx
	site site

	cur *conn // the connection being served
	// wsEvents is lent to each WebSocket's engine fed on this seat, so
	// that no idle WebSocket keeps a slice of events.
	wsEvents []websocket.Event
	// stream is the HTTP/2 stream whose handler runs on the seat, nil for
	// HTTP/1.1: moving it off leaves its connection with the loop.
	stream *h2stream
	// h3 is the HTTP/3 stream whose handler runs on the seat: moving it
	// off leaves its connection with the loop, as for HTTP/2.
	h3 *h3stream
	// h2ctx is the Ctx HTTP/2 streams run in on this seat (the HTTP/1.1
	// one may hold a request half read): a moved handler keeps it.
	h2ctx *Ctx
	route uint32 // the route of the request being served (Auto)
	seq   uint64 // the loop's hseq while its handler runs (Auto)
	// moved: the loop went on without this goroutine, which has had the
	// word from handed.
	moved   bool
	movedAt int64 // when, on the engine's clock
	handed  chan struct{}
}

var seatPool = sync.Pool{New: func() any {
	return &seat{buf: make([]byte, loopReadBuf), handed: make(chan struct{}, 1)}
}}

// newSeat returns a seat for a goroutine about to run l.
func newSeat(l *loop) *seat {
	st := seatPool.Get().(*seat)
	st.l = l
	if st.ctx == nil {
		st.ctx = &Ctx{}
	}
	st.ctx.srv = l.srv
	mode := l.srv.cfg.Mode
	st.site = site{ctx: st.ctx, dispatch: dispatcherOf(mode, st), files: true}
	return st
}

// release returns the seat of a goroutine that has finished with it.
func (st *seat) release() {
	st.ctx.reset()
	st.ctx.peer = nil
	if st.h2ctx != nil {
		st.h2ctx.reset()
		st.h2ctx.peer, st.h2ctx.onStream = nil, nil
	}
	st.site = site{}
	st.l, st.cur, st.stream, st.moved, st.out = nil, nil, nil, false, st.out[:0]
	seatPool.Put(st)
}

// h2Ctx returns the seat's Ctx for HTTP/2 streams.
func (st *seat) h2Ctx() *Ctx {
	if st.h2ctx == nil {
		st.h2ctx = &Ctx{srv: st.l.srv}
	}
	return st.h2ctx
}

// The seat is Auto mode's dispatcher: it learns which routes wait and
// watches the others' handlers against the budget.

func (st *seat) toWorker(path []byte) bool {
	st.route = routeOf(path)
	return st.l.routes.waits(st.route)
}

func (st *seat) offLoop() bool { return true }
func (st *seat) watched() bool { return true }

func (st *seat) enter() {
	l := st.l
	st.seq = l.hseq.Add(1)
	if wd := l.e.wd; wd != nil && wd.parked.Load() {
		wd.unpark()
	}
}

func (st *seat) leave() bool {
	l := st.l
	if l.hseq.CompareAndSwap(st.seq, st.seq+1) {
		l.routes.quick(st.route)
		return true
	}
	st.awaitHandOver()
	return false
}

// awaitHandOver waits, once, for the word that the loop has gone on
// without this goroutine.
func (st *seat) awaitHandOver() {
	if !st.moved {
		<-st.handed
		st.moved = true
	}
}

func (st *seat) moveOff(c *Ctx) {
	st.l.moveOff(st, st.seq, true)
	st.awaitHandOver()
	if st.stream == nil && st.h3 == nil {
		c.w = st.cur // a stream's writes are posts, not the socket's
	}
	c.mover = nil
}

// moveOff moves the handler running on l with sequence number seq, on the
// goroutine with seat st, off the loop: false if it has returned (or was
// moved) meanwhile, or, unless always, if MaxWorkers handlers are already
// finishing off their loops.
func (l *loop) moveOff(st *seat, seq uint64, always bool) bool {
	s := l.srv
	if !always && s.movedNow.Load() >= int64(s.cfg.MaxWorkers) {
		return false
	}
	if !l.hseq.CompareAndSwap(seq, seq+1) {
		return false
	}
	var busy *conn // an HTTP/2 or HTTP/3 connection stays the loop's
	if h3 := st.h3; h3 != nil {
		h3.movedOff() // before the loop's new goroutine starts, which reads it
	} else if h2 := st.stream; h2 == nil {
		busy = st.cur
		busy.state.Store(stBusy) // the handler's goroutine's, to the loop from now on
	} else if h2.ws != nil {
		// A WebSocket callback: its stream is the callback's goroutine's
		// until it hands it back (h2wsauto_linux.go); set before the
		// loop's new goroutine starts, which reads it.
		h2.wsOff = true
	} else if h2.ack == nil {
		// The stream's handler posts from now on, and Flush waits on ack:
		// made here, before the loop's new goroutine and the handler's
		// hear of the move, so both see it; what it flushed on the loop
		// goes to the loop.
		h2.movedOff()
	}
	st.movedAt = l.e.now()
	s.movedNow.Add(1)
	s.counters.movedOff.Add(1)
	go l.resume(busy, st.route) // it takes over this goroutine's place in e.running
	st.handed <- struct{}{}
	return true
}

// resume runs l on a new goroutine after its handler for route was moved
// off; busy is the handler's HTTP/1.1 connection (nil for an HTTP/2
// stream), which the wheel now checks as a worker's.
func (l *loop) resume(busy *conn, route uint32) {
	st := newSeat(l)
	l.seat = st
	l.seatNow.Store(st)
	l.routes.moved(route)
	if busy != nil {
		l.wheel.schedule(&busy.we, l.e.now()+l.minTimer)
	}
	if l.closingIdle {
		l.closingIdle = false
		l.closeIdleReq.Store(true) // start it again: it is idempotent
	}
	l.serveOn(st)
}

// serveOn runs l on the calling goroutine, with seat st, until the loop
// stops or the goroutine's handler is moved off the loop.
func (l *loop) serveOn(st *seat) {
	returned := false
	defer func() {
		switch {
		case returned:
			return
		case st.ctx.exited && l.srv.cfg.Mode == Auto:
			l.exitedOffLoop(st)
		}
		if st.moved {
			// The goroutine of a handler moved off the loop is done.
			l.srv.movedNow.Add(-1)
			st.release()
			return
		}
		// runtime.Goexit in an Inline handler.
		l.err = l.exited(st)
		l.e.stop()
		l.e.running.Done()
	}()
	err := l.run()
	returned = true
	l.err = err
	if err != nil {
		l.e.stop() // one loop failing takes the server down, not half of it
	}
	l.e.running.Done()
}

// finishMoved is the rest of a request whose handler, run on this
// goroutine, outlived its budget: the loop has gone on in another
// goroutine, so this one finishes the connection as a worker would (the
// response, then what else its client sent) and exits.
func (l *loop) finishMoved(st *seat, c *conn, rest, out []byte) {
	st.awaitHandOver()
	l.blipIfQuick(st)
	if st.ctx.upgrade != nil {
		c.upgradeAfterWork(st.ctx, rest, out)
		runtime.Goexit()
	}
	closing := st.ctx.closeConn
	c.linger = closing && len(rest) > 0 // the client may still be sending
	if !closing {
		c.keep(rest)
		c.moreToRead = true // the loop may have had more to read
	}
	c.reqStart, c.headScan = 0, 0
	if len(out) > 0 && c.writeAll(out) != nil {
		closing = true
	} else if st.ctx.file != nil && c.writeFile(st.ctx) != nil {
		closing = true // the head went, the file did not: the response is cut short
	}
	if closing {
		l.giveBack(c)
	} else {
		c.serveWork()
	}
	runtime.Goexit() // off the loop's stack: serveOn sees st.moved
}

// blipIfQuick unlearns the route of st's handler, moved off its loop, if
// it returned at once after the move: it was not waiting but held up (by
// the system, or the collector). Called off the loop, it leaves the
// route for the loop to fix (takeHandoffs).
func (l *loop) blipIfQuick(st *seat) {
	if l.e.now()-st.movedAt < int64(l.srv.cfg.HandlerBudget) {
		l.blips.Post(st.route)
	}
}

// exitedOffLoop finishes a request whose handler called runtime.Goexit on
// a loop in Auto mode, as a worker does in Pooled mode: the loop goes on
// in another goroutine, the client gets what serve left (a 500), and the
// connection closes.
func (l *loop) exitedOffLoop(st *seat) {
	if !st.moved {
		l.moveOff(st, st.seq, true)
		st.awaitHandOver()
	}
	c := st.cur
	c.writeAll(st.ctx.exitOut)
	c.state.Store(stBusy)
	l.giveBack(c)
}

// watchdog moves handlers that outlive their budget off their loops. It
// looks every half budget while handlers run, and parks when a whole
// tick passed with none entered: a loop that enters one wakes it.
type watchdog struct {
	e      *engine
	period time.Duration
	parked atomic.Bool
	wake   chan struct{}
	done   chan struct{}
}

func newWatchdog(e *engine) *watchdog {
	// A tick shorter than the runtime's timers can keep is a busy loop.
	period := max(e.srv.cfg.HandlerBudget/2, 10*time.Microsecond)
	return &watchdog{e: e, period: period,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (w *watchdog) unpark() {
	if w.parked.CompareAndSwap(true, false) {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

func (w *watchdog) run() {
	loops := w.e.loops
	last := make([]uint64, len(loops))
	for {
		select {
		case <-w.done:
			return
		default:
		}
		time.Sleep(w.period)
		active := false
		for i, l := range loops {
			v := l.hseq.Load()
			if v != last[i] {
				active = true
			} else if v&1 == 1 {
				// The same handler as a tick ago: at least a period old.
				active = true
				if st := l.seatNow.Load(); l.moveOff(st, v, false) {
					v++
				}
			}
			last[i] = v
		}
		if active {
			continue
		}
		w.parked.Store(true)
		// A loop may have entered a handler before it could see parked.
		for i, l := range loops {
			if l.hseq.Load() != last[i] {
				active = true
			}
		}
		if active && w.parked.CompareAndSwap(true, false) {
			continue
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
	}
}
