//go:build linux

package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/poll"
)

// Connection states. A connection is owned by its loop while stIdle, and
// by one worker goroutine while stBusy or stBusyEvent; only the owner reads
// or writes its socket and buffers.
const (
	stIdle      int32 = iota
	stBusy            // a worker is serving it
	stBusyEvent       // a worker is serving it and the socket reported readiness meanwhile
	stClosed
)

// conn is one client connection. Idle, it holds no buffers: in and out are
// borrowed from a pool while a request or response is in progress.
type conn struct {
	we       wheelEntry
	fd       int
	l        *loop
	state    atomic.Int32
	deadline atomic.Int64 // loop clock ns; when the current timeout expires

	in  []byte // received bytes not yet served
	out []byte // response bytes the loop still has to write

	closing      bool // close once out is written
	sentContinue bool // 100 Continue was sent for the request being read
	// moreToRead says the socket may hold bytes the loop did not read
	// before handing the connection to a worker (a full read buffer or a
	// hang-up): with edge-triggered polling no new event will announce
	// them, so the worker reads them itself.
	moreToRead bool
	// later: the connection is in its loop's list of sockets to read on
	// (its turn ended before the socket was drained); hangup, if a hang-up
	// was seen then.
	later, laterHangup bool
	reqStart           int64         // when the first byte of the request being read arrived; 0 between requests
	headScan           int           // bytes of c.in known to hold no complete head
	chunk              chunkProgress // decoding of a chunked body still arriving
	task               func()

	// For a worker waiting for the socket to accept more of a response.
	waiting atomic.Bool
	ready   chan struct{}
	// hijacked: a handler took the socket over; the server only closes
	// its own descriptor.
	hijacked atomic.Bool
	// For the net/http adapter: cancelled when the client goes away.
	cancelMu sync.Mutex
	cancel   context.CancelFunc
	remote   string // the client's address, formatted when the adapter first asks
}

func newConn(l *loop, fd int) *conn {
	c := &conn{fd: fd, l: l}
	c.we.owner = c
	c.we.slot = -1
	c.task = c.serveWork
	return c
}

// Buffers for connections in progress, shared by all loops and workers.
// The pool holds *buffer so that putting one back allocates nothing.
type buffer struct{ b []byte }

var bufPool = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 4096)} }}

// spareBuffers recycles the *buffer holders whose slices are out on loan.
var spareBuffers = sync.Pool{New: func() any { return new(buffer) }}

func getBuf() []byte {
	h := bufPool.Get().(*buffer)
	b := h.b[:0]
	h.b = nil
	spareBuffers.Put(h)
	return b
}

func putBuf(b []byte) {
	if cap(b) == 0 || cap(b) > 1<<20 {
		return // keep the pool to ordinary sizes
	}
	h := spareBuffers.Get().(*buffer)
	h.b = b[:0]
	bufPool.Put(h)
}

// keep stores data (a view of the loop buffer or of c.in itself) as the
// connection's unserved input.
func (c *conn) keep(data []byte) {
	if len(data) == 0 {
		c.dropIn()
		return
	}
	if c.in == nil {
		c.in = getBuf()
	}
	c.in = append(c.in[:0], data...) // copy handles data overlapping c.in
}

func (c *conn) dropIn() {
	if c.in != nil {
		putBuf(c.in)
		c.in = nil
	}
}

func (c *conn) release() {
	c.dropIn()
	if c.out != nil {
		putBuf(c.out)
		c.out = nil
	}
}

func (c *conn) remoteAddr() net.Addr {
	sa, err := unix.Getpeername(c.fd)
	if err != nil {
		return nil
	}
	return sockaddrToTCP(sa)
}

// due is the wheel's callback: close the connection if its deadline has
// passed and the loop owns it; otherwise say when to look again.
func (c *conn) due(now int64) int64 {
	l := c.l
	switch c.state.Load() {
	case stClosed:
		return 0
	case stBusy, stBusyEvent:
		// The worker moves the deadline when it gives the connection back,
		// never earlier than this.
		return now + l.minTimer
	}
	if d := c.deadline.Load(); d > now {
		return d
	}
	l.closeConn(c)
	return 0
}

// handle reacts to readiness of a connection's socket, on its loop.
func (l *loop) handle(c *conn, flags uint32, now int64) {
	for {
		switch st := c.state.Load(); st {
		case stClosed:
			return
		case stBusy, stBusyEvent:
			if flags&poll.Hangup != 0 {
				c.cancelMu.Lock()
				if c.cancel != nil {
					c.cancel()
				}
				c.cancelMu.Unlock()
			}
			if c.waiting.Load() {
				select {
				case c.ready <- struct{}{}:
				default:
				}
			}
			if st == stBusyEvent || c.state.CompareAndSwap(stBusy, stBusyEvent) {
				return // the worker reads it before giving the connection back
			}
			continue // the worker gave it back just now: handle it here
		}
		break
	}
	if len(c.out) > 0 {
		if flags&poll.Writable == 0 || !l.flushOut(c) || len(c.out) > 0 {
			return
		}
		if c.closing {
			l.closeConn(c)
			return
		}
		l.setDeadline(c, now+int64(l.srv.cfg.IdleTimeout))
		flags |= poll.Readable // input may have waited while the output was stuck
	}
	if flags&(poll.Readable|poll.Hangup) != 0 {
		l.readAndServe(c, flags&poll.Hangup != 0, now)
	}
}

// flushOut writes pending output; false means the connection was closed.
func (l *loop) flushOut(c *conn) bool {
	written := 0
	for written < len(c.out) {
		n, err := sockWrite(c.fd, c.out[written:])
		if n > 0 {
			l.srv.counters.bytesOut.Add(int64(n))
			written += n
			continue
		}
		if err == unix.EAGAIN {
			// Shift once per wake-up, not once per write.
			c.out = c.out[:copy(c.out, c.out[written:])]
			return true
		}
		if err == unix.EINTR {
			continue
		}
		l.closeConn(c)
		return false
	}
	putBuf(c.out)
	c.out = nil
	return true
}

// maxReadsPerTurn bounds the reads one connection gets each time the loop
// turns to it (4 x 64 KiB).
const maxReadsPerTurn = 4

// readAndServe drains the socket and serves the requests it holds.
func (l *loop) readAndServe(c *conn, hangup bool, now int64) {
	for reads := 0; ; reads++ {
		if reads == maxReadsPerTurn {
			// A client that sends as fast as the loop reads (a large or
			// endless body) gets a turn, not the loop: the rest is read
			// after the other connections' events.
			l.readLater(c, hangup)
			return
		}
		n, err := sockRead(c.fd, l.buf)
		if n > 0 {
			l.srv.counters.bytesIn.Add(int64(n))
			data := l.buf[:n]
			if len(c.in) > 0 {
				c.in = append(c.in, data...)
				data = c.in
				// A head still missing its end cannot have been completed by
				// bytes without a line feed: skip parsing it all again.
				if c.headScan > 0 && bytes.IndexByte(data[c.headScan:], '\n') < 0 && len(data) <= l.srv.cfg.MaxHeaderBytes {
					c.headScan = len(data)
					if n < len(l.buf) && !hangup {
						return
					}
					continue
				}
			}
			c.moreToRead = n == len(l.buf) || hangup
			if !l.serveInput(c, data, now) {
				return // closed, or handed to a worker
			}
			if len(c.out) > 0 {
				return // the client is not reading; wait until it does
			}
			if n < len(l.buf) && !hangup {
				return
			}
			continue
		}
		switch {
		case err == nil: // end of stream
			l.closeConn(c)
			return
		case err == unix.EAGAIN:
			return
		case err == unix.EINTR:
			continue
		}
		l.closeConn(c)
		return
	}
}

// serveInput serves the complete requests at the start of data (Inline
// mode) or hands the connection to a worker (Pooled mode). It returns
// false if the loop no longer owns an open connection.
func (l *loop) serveInput(c *conn, data []byte, now int64) bool {
	s := l.srv
	out := l.out[:0]
	kept := false // the start of a request waits in c.in for more bytes
	for len(data) > 0 {
		outcome, total, status := s.nextRequest(data, l.ctx, &c.chunk)
		if s.cfg.Mode == Pooled && (outcome == gotRequest || s.streamsBody(outcome)) {
			if len(out) > 0 {
				l.out = out
				if !l.writeOut(c) {
					return false
				}
				out = l.out[:0]
			}
			c.keep(c.chunk.trim(data))
			c.reqStart, c.headScan = 0, 0
			c.state.Store(stBusy)
			l.wheel.schedule(&c.we, now+l.minTimer)
			s.workers.submit(c.task)
			return false
		}
		switch outcome {
		case needMore, needBody, needContinue:
			if outcome == needContinue && !c.sentContinue {
				out = append(out, continueResponse...)
				c.sentContinue = true
			}
			data = c.chunk.trim(data)
			if len(c.in) == 0 || &data[0] != &c.in[0] {
				c.keep(data)
			} else {
				c.in = c.in[:len(data)]
			}
			kept = true
			// The head must be complete ReadHeaderTimeout after the
			// request's first byte, the body ReadTimeout after it.
			if c.reqStart == 0 {
				c.reqStart = now
			}
			timeout := s.cfg.ReadHeaderTimeout
			c.headScan = len(c.in)
			if outcome != needMore {
				timeout = s.cfg.ReadTimeout
				c.headScan = 0
			}
			l.setDeadline(c, c.reqStart+int64(timeout))
			data = nil
			continue
		case badRequest:
			out = appendError(out, status)
			c.closing = true
			data = nil
			continue
		}
		l.ctx.peer = c
		out = s.serve(l.ctx, out)
		c.chunk.reset()
		c.sentContinue = false
		c.reqStart, c.headScan = 0, 0
		data = data[total:]
		if l.ctx.closeConn {
			c.closing = true
			data = nil
		}
	}
	if !kept {
		c.dropIn() // everything in it was served
	}
	l.out = out
	if !l.writeOut(c) {
		return false
	}
	if c.closing && len(c.out) == 0 {
		l.closeConn(c)
		return false
	}
	if c.in == nil && len(c.out) == 0 {
		l.setDeadline(c, now+int64(s.cfg.IdleTimeout))
	}
	return true
}

// writeOut writes l.out to c, keeping what the socket does not take in
// c.out. It returns false if the connection was closed.
func (l *loop) writeOut(c *conn) bool {
	p := l.out
	l.out = p[:0]
	for len(p) > 0 {
		n, err := sockWrite(c.fd, p)
		if n > 0 {
			l.srv.counters.bytesOut.Add(int64(n))
			p = p[n:]
			continue
		}
		if err == unix.EAGAIN {
			if c.out == nil {
				c.out = getBuf()
			}
			c.out = append(c.out, p...)
			l.setDeadline(c, l.e.now()+int64(l.srv.cfg.WriteTimeout))
			return true
		}
		if err == unix.EINTR {
			continue
		}
		l.closeConn(c)
		return false
	}
	return true
}

// serveWork is a worker's job: serve the requests in c.in, in order, write
// the responses, read on while the socket has more, then give the
// connection back to its loop.
func (c *conn) serveWork() {
	l := c.l
	s := l.srv
	ctx := getCtx(s)
	ctx.peer = c
	out := ctx.resp[:0]
	defer func() {
		if ctx.exited {
			// The handler called runtime.Goexit: send what serve left, and close.
			c.writeAll(ctx.exitOut)
			c.state.Store(stBusy)
			l.giveBack(c)
		}
		ctx.resp = out[:0]
		putCtx(ctx)
	}()
	for {
		data := c.in
		closing := false
		for len(data) > 0 {
			outcome, total, status := s.nextRequest(data, ctx, &c.chunk)
			if s.streamsBody(outcome) {
				// Earlier responses go first: the handler may Flush, and
				// reading the body may send 100 Continue.
				if len(out) > 0 {
					if c.writeAll(out) != nil {
						closing = true
						break
					}
					out = out[:0]
				}
				var ok bool
				out, ok = c.serveStreamed(ctx, data, total, out)
				if !ok {
					closing = true
					break
				}
				data = c.in
				continue
			}
			if outcome == gotRequest {
				ctx.w = c
				ctx.peer = c
				ctx.rest = data[total:]
				out = s.serve(ctx, out)
				c.chunk.reset()
				c.sentContinue = false
				data = data[total:]
				if ctx.closeConn {
					closing = true
					break
				}
				if len(out) >= 64<<10 {
					if c.writeAll(out) != nil {
						closing = true
						break
					}
					out = out[:0]
				}
				continue
			}
			if outcome == badRequest {
				out = appendError(out, status)
				closing = true
			}
			if outcome == needContinue && !c.sentContinue {
				out = append(out, continueResponse...)
				c.sentContinue = true
			}
			data = c.chunk.trim(data)
			break
		}
		if !closing {
			c.keep(data)
		}
		if len(out) > 0 {
			if c.writeAll(out) != nil {
				closing = true
			}
			out = out[:0]
		}
		if closing || s.shutting.Load() && len(c.in) == 0 {
			c.state.Store(stBusy)
			l.giveBack(c)
			return
		}
		if c.moreToRead {
			c.moreToRead = false
			if !c.readMore() {
				l.giveBack(c)
				return
			}
			continue
		}
		if l.e.stopping.Load() {
			l.giveBack(c) // still ours: the loop (or, once it is gone, giveBack) closes it
			return
		}
		timeout := s.cfg.IdleTimeout
		if len(c.in) > 0 {
			timeout = s.cfg.ReadHeaderTimeout
		}
		c.deadline.Store(l.e.now() + int64(timeout))
		if c.state.CompareAndSwap(stBusy, stIdle) {
			if l.e.stopping.Load() {
				l.closeIfStopped(c)
			}
			return
		}
		// The socket reported readiness while we worked: read it here.
		c.state.Store(stBusy)
		if !c.readMore() {
			l.giveBack(c)
			return
		}
	}
}

// serveStreamed serves the request whose head is data[:headLen] and whose
// body has not all arrived, with the body read from the socket as the
// handler reads it. It appends the response to out, leaves in c.in what
// followed the body, and reports whether the connection can go on.
func (c *conn) serveStreamed(ctx *Ctx, data []byte, headLen int, out []byte) ([]byte, bool) {
	bs := newBodyStream(c, ctx, data, headLen, &c.chunk)
	defer bs.release()
	ctx.stream = bs
	ctx.w = c
	ctx.peer = c
	out = c.l.srv.serve(ctx, out)
	c.sentContinue = false
	if ctx.hijacked {
		return out, false
	}
	if !bs.done && len(out) > 0 {
		// The client may wait for the response before sending the rest
		// of a body the handler did not read: answer before draining.
		if c.writeAll(out) != nil {
			return out[:0], false
		}
		out = out[:0]
	}
	rest, ok := bs.finish()
	if !ok || ctx.closeConn {
		return out, false
	}
	c.keep(rest) // rest is a view of c.in or of the stream's buffer
	return out, true
}

// hijack detaches the connection for a handler that takes it over (on its
// worker): earlier pipelined responses are written, the socket leaves the
// loop's poller, and the handler gets a net.Conn on a duplicate of the
// descriptor. The loop closes the original when the worker gives the
// connection back, which leaves the handler's socket open.
func (c *conn) hijack(ctx *Ctx) (net.Conn, error) {
	if len(ctx.pending) > 0 {
		if err := c.writeAll(ctx.pending); err != nil {
			return nil, err
		}
		ctx.pending = ctx.pending[:0]
	}
	fd, err := unix.FcntlInt(uintptr(c.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("server: hijack: %w", err)
	}
	f := os.NewFile(uintptr(fd), "gust-hijacked")
	nc, err := net.FileConn(f) // a descriptor of its own, in Go's poller
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("server: hijack: %w", err)
	}
	c.hijacked.Store(true)
	// Out of the loop's epoll set before the loop closes its descriptor:
	// a registration lives as long as any descriptor of the socket does.
	c.l.poller.Remove(c.fd)
	c.cancelMu.Lock()
	c.cancel = nil // the request's context no longer follows the socket
	c.cancelMu.Unlock()
	return nc, nil
}

// readMore reads what the socket holds into c.in, from a worker; false
// means the connection ended or failed. It reads at most a loop buffer's
// worth (and sets moreToRead if the socket may hold more), so that a
// client sending faster than its requests are served cannot grow c.in
// without bound.
func (c *conn) readMore() bool {
	if c.in == nil {
		c.in = getBuf()
	}
	limit := len(c.in) + loopReadBuf
	for {
		if len(c.in) >= limit {
			c.moreToRead = true
			return true
		}
		if cap(c.in)-len(c.in) < 4096 {
			c.in = append(c.in, make([]byte, 4096)...)[:len(c.in)]
		}
		n, err := sockRead(c.fd, c.in[len(c.in):min(cap(c.in), limit)])
		if n > 0 {
			c.l.srv.counters.bytesIn.Add(int64(n))
			c.in = c.in[:len(c.in)+n]
			continue
		}
		switch {
		case err == nil:
			return false
		case err == unix.EAGAIN:
			return true
		case err == unix.EINTR:
			continue
		}
		return false
	}
}

var errWriteTimeout = errors.New("server: write timeout")

// writeAll writes p from a worker, waiting for the socket to drain when it
// is full, up to WriteTimeout.
func (c *conn) writeAll(p []byte) error {
	var timer *time.Timer
	defer func() {
		c.waiting.Store(false)
		if timer != nil {
			timer.Stop()
		}
	}()
	for len(p) > 0 {
		n, err := sockWrite(c.fd, p)
		if n > 0 {
			c.l.srv.counters.bytesOut.Add(int64(n))
			p = p[n:]
			continue
		}
		if err == unix.EINTR {
			continue
		}
		if err != unix.EAGAIN {
			return err
		}
		if !c.waiting.Load() {
			// Ask the loop to signal writability, then try once more: the
			// socket may have drained before the loop could see the flag.
			if c.ready == nil {
				c.ready = make(chan struct{}, 1)
			}
			c.waiting.Store(true)
			continue
		}
		if timer == nil {
			timer = time.NewTimer(c.l.srv.cfg.WriteTimeout)
		}
		select {
		case <-c.ready:
		case <-timer.C:
			return errWriteTimeout
		}
	}
	return nil
}

// Ctx values for workers, reused across requests.
var ctxPool sync.Pool

func getCtx(s *Server) *Ctx {
	if v := ctxPool.Get(); v != nil {
		c := v.(*Ctx)
		c.srv = s
		return c
	}
	return &Ctx{srv: s}
}

func putCtx(c *Ctx) {
	c.reset()
	c.peer = nil
	if cap(c.out) > 1<<20 || cap(c.resp) > 1<<20 {
		return
	}
	ctxPool.Put(c)
}

// onClientGone arranges for cancel to be called if the client hangs up
// while its request is being served; nil removes it.
func (c *conn) onClientGone(cancel context.CancelFunc) {
	c.cancelMu.Lock()
	c.cancel = cancel
	c.cancelMu.Unlock()
}

// remoteString returns the client's address as host:port, formatted once
// per connection, on a worker (the adapter's RemoteAddr).
func (c *conn) remoteString() string {
	if c.remote == "" {
		if a := c.remoteAddr(); a != nil {
			c.remote = a.String()
		}
	}
	return c.remote
}
