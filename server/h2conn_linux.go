//go:build linux

package server

import (
	"bytes"
	"errors"
	"sync"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/transport"
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
	// ready lists connections with posts from workers; guarded by l.mu.
	ready, spare []*h2conn
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

// http1Shaped reports whether data, a request the HTTP/1.1 parser
// refused, at least names an HTTP version on its first line. On a port
// that takes h2c beside HTTP/1.1, bytes that do not (h2spec's
// "INVALID CONNECTION PREFACE", a preface with a typo) are as likely a
// broken HTTP/2 client as an HTTP/1.x one, and the answer that fits both
// is HTTP/2's to an invalid preface (RFC 9113 section 3.4): close without
// a response, rather than write HTTP/1.1 bytes at an HTTP/2 client.
func http1Shaped(data []byte) bool {
	line := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line = data[:i]
	}
	return bytes.Contains(line, []byte(" HTTP/"))
}

// startH2C looks at the first bytes of a connection for the h2c (prior
// knowledge) preface. It reports whether it took the input: the whole
// preface switches the connection to HTTP/2 and serves data; a part of it
// is kept until the rest arrives. ok is false if the connection closed.
func (l *loop) startH2C(c *conn, data []byte, now int64) (took, ok bool) {
	if c.h2 != nil || !l.srv.cfg.H2C {
		return false, true
	}
	prefix, whole := isH2Preface(data)
	if !prefix {
		return false, true
	}
	if !whole {
		c.keep(data)
		c.headScan = 0
		return true, true
	}
	l.serveH2(c, now)
	if l.feedH2(c, data, now) {
		l.readH2(c, false, now) // the rest of the turn, the HTTP/2 way
	}
	return true, false // the HTTP/1.1 reader is done with c
}

// serveH2 switches c to HTTP/2: from here on every byte it reads is
// HTTP/2 frames, beginning with the client preface. It is the entry for
// h2c with prior knowledge (startH2C) and for TLS connections whose ALPN
// chose "h2": the TLS path calls it once the handshake is done, with c.t
// the TLS transport. It queues the server's SETTINGS.
func (l *loop) serveH2(c *conn, now int64) {
	hc := &h2conn{c: c, sc: http2.NewServerConn(l.srv.cfg.h2EngineConfig()), streams: map[uint32]*h2stream{},
		lastActive: now}
	c.h2 = hc
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
}

// handleH2 reacts to readiness of an HTTP/2 connection's socket.
func (l *loop) handleH2(c *conn, flags uint32, now int64) {
	if flags&poll.Writable != 0 && c.blocked {
		if !l.writeH2(c, now) {
			return
		}
		if !c.blocked {
			flags |= poll.Readable // input may have waited while the output was stuck
		}
	}
	if flags&(poll.Readable|poll.Hangup) != 0 {
		l.readH2(c, flags&poll.Hangup != 0, now)
		return
	}
	l.afterH2(c, now)
}

// readH2 reads what the socket holds, a turn's worth, and feeds it to the
// engine.
func (l *loop) readH2(c *conn, hangup bool, now int64) {
	for reads := 0; ; reads++ {
		if reads == maxReadsPerTurn {
			l.readLater(c, hangup)
			break
		}
		if c.blocked && len(c.out) >= outStopRead {
			break // read again once the socket takes output (handleH2)
		}
		n, err := c.t.Read(l.seat.buf)
		if n > 0 {
			l.srv.counters.bytesIn.Add(int64(n))
			drained := n < len(l.seat.buf) && !hangup && c.shortReadDrains()
			data := l.seat.buf[:n]
			if len(c.in) > 0 {
				c.in = append(c.in, data...)
				data = c.in
			}
			if !l.feedH2(c, data, now) {
				return
			}
			if drained || c.h2.closing {
				break
			}
			continue
		}
		if err == transport.ErrWouldBlock {
			break
		}
		l.closeH2(c) // io.EOF, the peer's close, or a failure
		return
	}
	l.afterH2(c, now)
}

// feedH2 gives data to the engine and acts on its events; it keeps in
// c.in what the engine has not consumed (part of a frame). It returns
// false if the connection was closed.
func (l *loop) feedH2(c *conn, data []byte, now int64) bool {
	hc := c.h2
	hc.lastActive = now
	if c.out == nil {
		c.out = getBuf()
	}
	out, n, err := hc.sc.Feed(c.out, data)
	c.out = out
	events := hc.sc.Events()
	for i := range events {
		l.h2Event(hc, &events[i], now)
	}
	if err != nil {
		hc.closing = true // the engine appended GOAWAY: write it, then close
		c.dropIn()
		return true
	}
	c.keep(data[n:]) // only now: events alias data
	return true
}

// afterH2 finishes a turn on an HTTP/2 connection: response bytes the
// windows admit go to the engine, output to the socket, and the deadline
// is set for what the connection waits for now.
func (l *loop) afterH2(c *conn, now int64) {
	hc := c.h2
	if c.state.Load() == stClosed || c.lingering {
		return
	}
	l.pumpH2(hc, now)
	if !l.writeH2(c, now) {
		return
	}
	if (hc.closing || hc.sc.Done() && len(hc.streams) == 0) && !c.blocked {
		// GOAWAY is written: a lingering close, so that frames the client
		// still sends do not turn into a reset that could discard it.
		c.linger = true
		l.closeAfterResponse(c)
		return
	}
	l.setDeadline(c, l.nextH2Deadline(hc, now))
}

// writeH2 writes c.out (and what the transport holds); false means the
// connection was closed.
func (l *loop) writeH2(c *conn, now int64) bool {
	if len(c.out) == 0 && !c.blocked {
		if c.out != nil {
			putBuf(c.out) // an idle connection holds no buffer
			c.out = nil
		}
		return true
	}
	var p []byte // nil: flush what the transport holds
	if len(c.out) > 0 {
		p = c.out
	}
	n, err := c.t.Write(p)
	if n > 0 {
		l.srv.counters.bytesOut.Add(int64(n))
	}
	switch err {
	case nil:
		putBuf(c.out)
		c.out = nil
		c.blocked = false
		return true
	case transport.ErrWouldBlock:
		c.out = c.out[:copy(c.out, c.out[n:])]
		if !c.blocked || n > 0 {
			c.h2.blockedSince = now
		}
		c.blocked = true
		return true
	}
	l.closeH2(c)
	return false
}

// closeH2 closes an HTTP/2 connection the loop owns; release (closeConn)
// fails the streams still in progress.
func (l *loop) closeH2(c *conn) {
	l.closeConn(c)
}

// closed is called when the connection closes (from release): streams
// still in progress end, their handlers see errors, and posts fail.
func (hc *h2conn) closed() {
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

// queueH2 puts hc on its loop's list of connections with posts and wakes
// the loop, from a worker.
func (l *loop) queueH2(hc *h2conn) {
	l.mu.Lock()
	if !l.stopped {
		l.h2.ready = append(l.h2.ready, hc)
		l.poller.Wake()
	}
	l.mu.Unlock()
}

// takeH2Work applies what workers posted: response parts and body credit.
func (l *loop) takeH2Work(now int64) {
	l.mu.Lock()
	list := l.h2.ready
	l.h2.ready = l.h2.spare[:0]
	l.mu.Unlock()
	for i, hc := range list {
		list[i] = nil
		hc.mu.Lock()
		sts := hc.ready
		hc.ready = hc.spare[:0]
		hc.queued = false
		for _, st := range sts {
			st.take()
		}
		hc.mu.Unlock()
		c := hc.c
		if c.state.Load() == stClosed {
			for _, st := range sts {
				st.dropTaken()
			}
			continue
		}
		for j, st := range sts {
			l.applyH2(hc, st, now)
			sts[j] = nil
		}
		hc.mu.Lock()
		if len(hc.spare) == 0 {
			hc.spare = sts[:0]
		}
		hc.mu.Unlock()
		l.afterH2(c, now)
	}
	l.mu.Lock()
	l.h2.spare = list[:0]
	l.mu.Unlock()
}

// h2Event acts on one thing the engine reported.
func (l *loop) h2Event(hc *h2conn, e *http2.ServerEvent, now int64) {
	switch e.Kind {
	case http2.ServerRequest:
		l.h2Request(hc, e, now)
	case http2.ServerData:
		st := hc.streams[e.StreamID]
		if st == nil {
			// Answered already (413, or early): the body is dropped and
			// its credit given back.
			hc.c.out = hc.sc.Consume(hc.c.out, e.StreamID, len(e.Data))
			return
		}
		l.h2Body(hc, st, e.Data, e.EndStream)
	case http2.ServerTrailers:
		if st := hc.streams[e.StreamID]; st != nil {
			l.h2Trailers(hc, st, e.Header)
		}
	case http2.ServerReset:
		if st := hc.streams[e.StreamID]; st != nil {
			l.endH2Stream(hc, st, errStreamGone)
		}
	}
}
