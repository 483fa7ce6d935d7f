//go:build linux

package server

import (
	"errors"
	"sync"

	"github.com/gust-http/gust/internal/http2"
)

// The HTTP/2 side of a connection, on its loop: the sans-I/O engine
// (internal/http2.ServerConn) fed with what the transport reads, its output
// written through the same transport, streams dispatched to handlers like
// HTTP/1.1 requests (on the loop in Inline mode, on a worker in Pooled
// mode, on the loop and then off it if they wait in Auto mode), and what
// workers and moved handlers hand back applied here. The loop owns the
// connection throughout: an HTTP/2 connection is never stBusy.

// h2conn is a connection's HTTP/2 state. Fields without a comment are the
// loop's.
type h2conn struct {
	c       *conn
	sc      *http2.ServerConn
	streams map[uint32]*h2stream // streams with a handler or a response in progress
	sending []*h2stream          // streams with response bytes still to give the engine

	lastActive   int64 // loop clock: the last stream ended or frames arrived; IdleTimeout counts from it
	blockedSince int64 // when the socket stopped taking output; WriteTimeout counts from it
	goAway       bool  // GOAWAY sent for Shutdown or IdleTimeout
	closing      bool  // close once the output is written
	// remote is the client's address for the adapter, formatted on the
	// loop before the first stream: workers of several streams read it.
	remote string
	// inAfter: in the loop's list of connections to finish after the
	// turn's streams have run (Auto).
	inAfter bool

	mu     sync.Mutex  // guards what workers hand over: ready, spare, queued, dead
	ready  []*h2stream // streams with a part or credit posted by a worker
	spare  []*h2stream
	queued bool // in its loop's list of connections with posts
	dead   bool // the connection closed: posts fail
}

// h2loop is a loop's HTTP/2 state.
type h2loop struct {
	fields fieldScratch
	// Auto mode's streams to start at the end of the turn and the
	// connections to finish after them, with how far the loop got: kept
	// here, not on a stack, so that the loop's new goroutine goes on
	// where a handler that was moved off left it (h2auto_linux.go).
	runq      []*h2stream
	runNext   int
	after     []*h2conn
	afterNext int
}

// outHigh bounds the response bytes a connection queues for the socket:
// past it, no more response body is given to the engine until the client
// reads. (Control frames are bounded by the engine's MaxPendingOutput.)
const outHigh = 256 << 10

// outStopRead bounds everything a connection queues for a socket that
// does not take it (headers and small responses to a client that sends
// requests and reads nothing): past it the loop stops reading the
// connection until the socket drains, so the client's own TCP window
// pushes back; WriteTimeout ends it if it never does.
const outStopRead = 1 << 20

var (
	errStreamGone = errors.New("server: HTTP/2 stream reset or connection closed")
	errConnClosed = errors.New("server: connection closed")
)

// isH2Preface reports whether data, the first bytes of a connection, are
// (the start of) the HTTP/2 client preface, and whether all of it is here.
func isH2Preface(data []byte) (prefix, whole bool) {
	k := min(len(data), len(http2.ClientPreface))
	if string(data[:k]) != http2.ClientPreface[:k] {
		return false, false
	}
	return true, k == len(http2.ClientPreface)
}

// newH2Conn switches c to HTTP/2: from here on every byte it reads is
// HTTP/2 frames, beginning with the client preface. It is the entry for
// h2c with prior knowledge (serveInput) and for TLS connections whose
// ALPN chose "h2" (afterHandshake, with c.t the TLS transport). It queues
// the server's SETTINGS.
func newH2Conn(c *conn, now int64) *h2conn {
	l := c.l
	hc := &h2conn{c: c, sc: http2.NewServerConn(l.srv.cfg.h2EngineConfig()), streams: map[uint32]*h2stream{},
		lastActive: now}
	c.proto = hc
	c.headScan = 0
	c.rd.done()
	if c.out == nil {
		c.out = getBuf()
	}
	c.out = hc.sc.Start(c.out)
	if l.srv.shutting.Load() {
		c.out = hc.sc.Shutdown(c.out)
		hc.goAway = true
	}
	return hc
}

// reading: the loop stops reading a connection whose output backs up past
// outStopRead, and one that is closing.
func (hc *h2conn) reading(c *conn) bool {
	return !hc.closing && !(c.blocked && len(c.out) >= outStopRead)
}

func (hc *h2conn) writable(c *conn, now int64) bool { return hc.write(now) }

// serve gives data to the engine and acts on its events; it keeps in
// c.in what the engine has not consumed (part of a frame).
func (hc *h2conn) serve(c *conn, data []byte, drained bool, now int64) bool {
	hc.lastActive = now
	if c.out == nil {
		c.out = getBuf()
	}
	out, n, err := hc.sc.Feed(c.out, data)
	c.out = out
	events := hc.sc.Events()
	for i := range events {
		hc.event(&events[i], now)
	}
	if err != nil {
		hc.closing = true // the engine appended GOAWAY: write it, then close
		c.dropIn()
		return true
	}
	c.keep(data[n:]) // only now: events alias data
	return true
}

// endTurn finishes a turn on an HTTP/2 connection: response bytes the
// windows admit go to the engine, output to the socket, and the deadline
// is set for what the connection waits for now.
func (hc *h2conn) endTurn(c *conn, now int64) {
	l := c.l
	if c.state.Load() == stClosed || c.lingering {
		return
	}
	if hc.inAfter {
		// Streams of this turn start at its end (h2loop.run), which
		// finishes the connection then: what the reads produced (PING
		// and SETTINGS acknowledgements) goes in one write with their
		// answers.
		return
	}
	hc.pump(now)
	full := len(c.out) >= outHigh // streams may have stopped for it, not for their windows
	if !hc.write(now) {
		return
	}
	if full && !c.blocked && len(hc.sending) > 0 {
		// The socket took it all: no event brings the connection back
		// (a client with large windows sends no WINDOW_UPDATE), so the
		// loop comes back to it after the other connections' events.
		l.readLater(c, false)
	}
	if (hc.closing || hc.sc.Done() && len(hc.streams) == 0) && !c.blocked {
		// GOAWAY is written: a lingering close, so that frames the client
		// still sends do not turn into a reset that could discard it.
		c.linger = true
		l.closeAfterResponse(c)
		return
	}
	l.setDeadline(c, hc.nextDeadline(now))
}

// write writes c.out (and what the transport holds); false means the
// connection was closed (release fails the streams still in progress).
func (hc *h2conn) write(now int64) bool {
	return hc.c.l.writeQueued(hc.c, &hc.blockedSince, now)
}

// release is called when the connection closes: streams still in
// progress end, their handlers see errors, and posts fail.
func (hc *h2conn) release(c *conn) {
	hc.mu.Lock()
	hc.dead = true
	hc.mu.Unlock()
	for id, st := range hc.streams {
		st.fail(errConnClosed)
		st.releaseSend()
		delete(hc.streams, id)
	}
	hc.sending = nil
}

// queue puts hc on its loop's list of connections with posts, from a
// worker, once per batch (hc.queued, under hc.mu).
func (hc *h2conn) queue() { hc.c.l.post(hc.c) }

// posted applies what workers posted: response parts and body credit.
func (hc *h2conn) posted(c *conn, now int64) {
	hc.mu.Lock()
	sts := hc.ready
	hc.ready = hc.spare[:0]
	hc.queued = false
	for _, st := range sts {
		st.take()
	}
	hc.mu.Unlock()
	if c.state.Load() == stClosed {
		for _, st := range sts {
			st.dropTaken()
		}
		return
	}
	for j, st := range sts {
		hc.apply(st, now)
		sts[j] = nil
	}
	hc.mu.Lock()
	if len(hc.spare) == 0 {
		hc.spare = sts[:0]
	}
	hc.mu.Unlock()
	hc.endTurn(c, now)
}

// event acts on one thing the engine reported.
func (hc *h2conn) event(e *http2.ServerEvent, now int64) {
	switch e.Kind {
	case http2.ServerRequest:
		hc.request(e, now)
	case http2.ServerData:
		st := hc.streams[e.StreamID]
		if st == nil {
			// Answered already (413, or early): the body is dropped and
			// its credit given back.
			hc.c.out = hc.sc.Consume(hc.c.out, e.StreamID, len(e.Data))
			return
		}
		hc.body(st, e.Data, e.EndStream)
	case http2.ServerTrailers:
		if st := hc.streams[e.StreamID]; st != nil {
			hc.trailers(st, e.Header)
		}
	case http2.ServerReset:
		if st := hc.streams[e.StreamID]; st != nil {
			hc.endStream(st, errStreamGone)
		}
	}
}

// nextDeadline is when the wheel should look at hc next: the first of
// WriteTimeout for stuck output, ReadTimeout for a body that does not
// come, and IdleTimeout with no stream. Each counts from a fixed time, so
// a client that keeps sending frames does not push them back.
func (hc *h2conn) nextDeadline(now int64) int64 {
	l := hc.c.l
	cfg := &l.srv.cfg
	next := now + int64(cfg.IdleTimeout) // handlers running: no timeout but a look now and then
	if len(hc.streams) == 0 {
		next = hc.lastActive + int64(cfg.IdleTimeout)
	}
	if hc.c.blocked {
		next = min(next, hc.blockedSince+int64(cfg.WriteTimeout))
	}
	for _, st := range hc.streams {
		if st.ws != nil {
			next = st.ws.streamDeadline(next)
		}
		switch {
		case st.inSending:
			next = min(next, st.since+int64(cfg.WriteTimeout))
		case !st.dispatched:
			next = min(next, st.started+int64(cfg.ReadTimeout))
		}
	}
	return next
}

// due is the wheel's callback for an HTTP/2 connection: WriteTimeout
// for a socket or streams that do not take output, ReadTimeout for a
// request body that does not come, IdleTimeout with GOAWAY. It returns the
// next deadline, or 0 after closing.
func (hc *h2conn) due(c *conn, now int64) int64 {
	cfg := &c.l.srv.cfg
	if c.blocked && now-hc.blockedSince >= int64(cfg.WriteTimeout) {
		c.l.closeConn(c)
		return 0
	}
	for _, st := range hc.streams {
		switch {
		case st.inSending && now-st.since >= int64(cfg.WriteTimeout):
			// A zero window that never opens: the slow reader's stream is cut.
			c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeCancel)
			hc.endStream(st, errWriteTimeout)
		case st.ws != nil:
			hc.wsDue(st, now)
		case !st.dispatched && now-st.started >= int64(cfg.ReadTimeout):
			c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeCancel)
			hc.endStream(st, errStreamGone)
		}
	}
	if len(hc.streams) == 0 && !c.blocked && now-hc.lastActive >= int64(cfg.IdleTimeout) {
		if !hc.goAway {
			hc.goAway = true
			c.out = hc.sc.Shutdown(c.out)
		}
		hc.closing = true
	}
	hc.endTurn(c, now)
	if c.state.Load() == stClosed {
		return 0
	}
	return c.deadline.Load()
}

// shutdown is Shutdown's step for an HTTP/2 connection: GOAWAY once, then
// close when every accepted stream is finished and the output written.
func (hc *h2conn) shutdown(c *conn, begin bool) (took, began bool) {
	if !hc.goAway && !begin {
		return false, false
	}
	now := c.l.e.now()
	began = !hc.goAway
	if began {
		hc.goAway = true
		if c.out == nil {
			c.out = getBuf()
		}
		c.out = hc.sc.Shutdown(c.out)
	}
	for _, st := range hc.streams {
		if st.ws != nil {
			hc.shutdownWS(st)
		}
	}
	hc.endTurn(c, now)
	return true, began
}
