//go:build linux

package server

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http3"
)

// An HTTP/3 request stream: its request read on the loop, its handler run
// on the loop (Inline) or on a worker, and its response written into the
// QUIC stream by the loop. A worker hands its response's frames to the
// loop through the stream (post), and Flush waits until the loop has
// written them into QUIC's send buffer, whose bound holds a fast handler
// back from a slow client.

// errH3Gone is what a worker's writes return once the client reset
// the stream or the connection closed.
var errH3Gone = errors.New("server: HTTP/3 stream closed by the client")

// h3stream is one request stream.
type h3stream struct {
	c    *h3conn
	id   uint64
	rr   http3.RequestReader
	peer netip.AddrPort // the client's address when the request was in

	// The loop's.
	started bool   // the request is whole and its handler started
	worker  bool   // a worker runs its handler and has not posted the end
	pend    []byte // frames not yet taken by QUIC
	fin     bool   // the stream ends after pend
	finSent bool
	onLoop  bool // its handler runs on the loop (Inline): Flush is refused
	headIn  bool // the request's head was looked at for Expect (continueOrRefuse)

	// The worker's, while it runs the handler.
	headersSent bool
	frames      []byte
	section     []byte

	// Shared with the worker, under mu.
	mu        sync.Mutex
	posted    []byte
	postedEnd bool // the handler's last frames: the stream ends after them
	// postedReset: the handler panicked after its head went out, so the
	// stream is reset rather than ended.
	postedReset bool
	dead        bool // reset by the client or its connection closed
	waiter      bool // a worker waits in Flush until the loop has written what it posted
	inBox       atomic.Bool
	ack         chan struct{}
}

// newStream returns a stream for request id of c, reusing a released one.
func (h *h3loop) newStream(c *h3conn, id uint64) *h3stream {
	var st *h3stream
	if n := len(h.free); n > 0 {
		st = h.free[n-1]
		h.free[n-1] = nil
		h.free = h.free[:n-1]
	} else {
		st = &h3stream{}
	}
	st.c, st.id = c, id
	st.rr.Reset(id)
	st.rr.MaxBody = h.l.srv.cfg.MaxBodyBytes
	st.rr.Decoder.MaxFieldSectionSize = uint64(h.l.srv.cfg.MaxHeaderBytes)
	return st
}

// release ends the stream's life on the loop; one without a worker goes
// back to the free list.
func (st *h3stream) release() {
	c := st.c
	if c.streams[st.id] == st {
		delete(c.streams, st.id)
	}
	if st.worker {
		return // the worker still holds it; the garbage collector takes it
	}
	st.c = nil
	st.started, st.fin, st.finSent, st.onLoop, st.headersSent, st.headIn = false, false, false, false, false, false
	st.pend, st.frames, st.posted = st.pend[:0], st.frames[:0], st.posted[:0]
	st.postedEnd, st.postedReset, st.dead, st.waiter = false, false, false, false
	st.inBox.Store(false)
	select {
	case <-st.ack: // a wake-up no worker took: not the next request's
	default:
	}
	st.rr.Reset(0)
	c.h.free = append(c.h.free, st)
}

// abandon is the end of a stream the client reset, or whose connection
// closed: a worker's writes fail from now on.
func (st *h3stream) abandon() {
	st.mu.Lock()
	st.dead = true
	if st.waiter {
		st.waiter = false
		st.signal()
	}
	st.mu.Unlock()
	st.release()
}

func (st *h3stream) signal() {
	select {
	case st.ack <- struct{}{}:
	default:
	}
}

// start runs the handler of a whole request: on the loop in Inline mode,
// on a worker otherwise.
func (st *h3stream) start() {
	st.started = true
	st.peer = st.c.peer
	l := st.c.h.l
	s := l.srv
	if _, adapter := s.Handler.(*httpAdapter); adapter || s.cfg.Mode == Pooled {
		st.toWorker()
		return
	}
	if s.cfg.Mode == Auto {
		h := st.c.h
		h.runq = append(h.runq, st) // started once the turn's reads are done (h3loop.turn)
		return
	}
	st.onLoop = true
	h := st.c.h
	ctx := h.ctx
	st.fill(ctx)
	s.counters.inflight.Add(1)
	panicked := s.runHandler(ctx, nil)
	s.counters.inflight.Add(-1)
	s.counters.requests.Add(1)
	h.resp, h.section = st.appendFinal(h.resp[:0], h.section, ctx, panicked, &h.fields)
	ctx.onStream, ctx.peer = nil, nil
	st.write(h.resp, true)
}

// toWorker gives the stream's handler to a worker.
func (st *h3stream) toWorker() {
	st.worker = true
	if st.ack == nil {
		st.ack = make(chan struct{}, 1)
	}
	st.c.h.l.srv.workers.submit(st)
}

// refuse answers a request the loop will not hand to its handler (a
// body past MaxBodyBytes) with status and no content.
func (st *h3stream) refuse(status int) {
	st.started = true
	h := st.c.h
	sec := http3.AppendSectionPrefix(h.section[:0])
	sec = http3.AppendField(sec, ":status", lengthString(status))
	sec = http3.AppendField(sec, "content-length", "0")
	h.section = sec
	h.resp = http3.AppendHeaders(h.resp[:0], sec)
	st.c.qc.StopSending(st.id, h3RequestRejected)
	st.write(h.resp, true)
}

// continueOrRefuse answers a request whose head is in and whose content
// is to come, if it expects 100-continue (RFC 9110 section 10.1.1): a 100
// (Continue), so that its client sends the content, or a 413 for a length
// past MaxBodyBytes, known from the head alone. It reports whether the
// request was refused.
func (st *h3stream) continueOrRefuse() bool {
	st.headIn = true
	expect := false
	for _, f := range st.rr.Head.Fields {
		if string(f.Name) == "expect" && http1.EqualFold(f.Value, "100-continue") {
			expect = true
		}
	}
	if !expect {
		return false
	}
	if st.rr.Head.ContentLength > st.rr.MaxBody {
		st.refuse(413)
		return true
	}
	h := st.c.h
	sec := http3.AppendField(http3.AppendSectionPrefix(h.section[:0]), ":status", "100")
	h.section = sec
	h.resp = http3.AppendHeaders(h.resp[:0], sec)
	st.write(h.resp, false)
	return false
}

// write gives QUIC the frames b (copying what it does not take at once),
// the stream's end after them if fin.
func (st *h3stream) write(b []byte, fin bool) {
	if len(st.pend) == 0 {
		n, err := st.c.qc.Write(st.id, b)
		if err != nil {
			st.abandon()
			return
		}
		b = b[n:]
	}
	st.pend = append(st.pend, b...)
	st.fin = st.fin || fin
	st.writeOut()
}

// writeOut gives QUIC what it takes of the pending frames, ends the
// stream once they are all taken, and wakes a worker waiting in Flush.
func (st *h3stream) writeOut() {
	for len(st.pend) > 0 {
		n, err := st.c.qc.Write(st.id, st.pend)
		if err != nil {
			st.abandon()
			return
		}
		if n == 0 {
			return // the stream's send buffer is full: EventStreamWritable brings it back
		}
		st.pend = st.pend[:copy(st.pend, st.pend[n:])]
	}
	if st.worker {
		// The worker waiting in Flush is woken once what it posted is
		// all in QUIC: not while its latest post waits to be taken.
		st.mu.Lock()
		if st.waiter && len(st.posted) == 0 {
			st.waiter = false
			st.signal()
		}
		st.mu.Unlock()
	}
	if st.fin && !st.finSent {
		st.finSent = true
		st.c.qc.CloseWrite(st.id)
		st.release()
	}
}

// takePosted moves what the worker posted into the pending frames.
func (st *h3stream) takePosted() {
	st.mu.Lock()
	st.inBox.Store(false) // under mu: a post after this one posts the stream again
	if st.dead {
		if st.postedEnd {
			st.worker = false
		}
		st.mu.Unlock()
		return
	}
	st.pend = append(st.pend, st.posted...)
	st.posted = st.posted[:0]
	end, reset := st.postedEnd, st.postedReset
	st.mu.Unlock()
	if reset {
		st.worker = false
		st.c.qc.ResetStream(st.id, h3InternalError)
		st.release()
		return
	}
	if end {
		st.worker = false
		st.fin = true
	}
	if !st.c.gone {
		st.writeOut()
	}
}

// post hands the loop frames the worker built; end says they are the
// response's last. wait makes it return only once the loop has written
// them into QUIC (Flush), or after WriteTimeout.
func (st *h3stream) post(b []byte, end, wait bool) error {
	st.mu.Lock()
	if st.dead {
		st.mu.Unlock()
		return errH3Gone
	}
	st.posted = append(st.posted, b...)
	st.postedEnd = end
	if wait {
		st.waiter = true
	}
	// Both under mu, with takePosted's: once the loop may have taken the
	// last post and released the stream, this goroutine reads no more of
	// it, nor posts it again.
	h := st.c.h
	inBox := st.inBox.Swap(true)
	st.mu.Unlock()
	if !inBox && !h.posts.Post(st) {
		return errH3Gone // the loop has stopped
	}
	if !wait {
		return nil
	}
	timer := time.NewTimer(h.l.srv.cfg.WriteTimeout)
	defer timer.Stop()
	select {
	case <-st.ack:
	case <-timer.C:
		st.mu.Lock()
		st.waiter = false // no wake-up left for the next Flush
		st.mu.Unlock()
		select {
		case <-st.ack:
		default:
		}
		return errors.New("server: HTTP/3 write timed out")
	}
	st.mu.Lock()
	dead := st.dead
	st.mu.Unlock()
	if dead {
		return errH3Gone
	}
	return nil
}

// run is the worker's side (task): the handler, then its response posted.
func (st *h3stream) run() {
	s := st.c.h.l.srv
	ctx := getCtx(s)
	st.fill(ctx)
	s.counters.inflight.Add(1)
	defer func() {
		s.counters.inflight.Add(-1)
		s.counters.requests.Add(1)
		ctx.onStream, ctx.peer = nil, nil
		putCtx(ctx)
	}()
	if a, ok := s.Handler.(*httpAdapter); ok {
		a.serveH3(ctx, st)
		return
	}
	panicked := s.runHandler(ctx, nil)
	st.postFinal(ctx, panicked)
}

// postFinal posts the rest of a native handler's response, on its worker.
func (st *h3stream) postFinal(ctx *Ctx, panicked bool) {
	if panicked && st.headersSent {
		st.mu.Lock()
		st.postedReset = true
		st.mu.Unlock()
	}
	st.frames, st.section = st.appendFinal(st.frames[:0], st.section, ctx, panicked, nil)
	st.post(st.frames, true, false)
}

// fill readies ctx for the stream's request.
func (st *h3stream) fill(ctx *Ctx) {
	ctx.reset()
	h := &st.rr.Head
	r := &ctx.req
	r.Method, r.Scheme, r.Target, r.Host = h.Method, h.Scheme, h.Path, h.Authority
	r.Headers = append(r.Headers, h.Fields...)
	if r.Host == nil {
		r.Host = r.Get("host")
	}
	r.Major, r.Minor = 3, 0
	r.ContentLength = h.ContentLength
	r.SplitTarget()
	ctx.body = st.rr.Body
	ctx.head = string(h.Method) == "HEAD"
	ctx.peer = st
	ctx.onStream = st
	ctx.srv = st.c.h.l.srv
}

// appendFinal appends the rest of the response a native handler left in
// ctx: the head unless Flush sent it, the body, and the stream's end; a
// handler that panicked gets a 500, or its stream reset once its head
// went out.
func (st *h3stream) appendFinal(b, sec []byte, ctx *Ctx, panicked bool, scratch *fieldScratch) ([]byte, []byte) {
	if panicked {
		if st.headersSent {
			return b, sec // a worker's stream, reset by the loop (postedReset)
		}
		sec = http3.AppendSectionPrefix(sec[:0])
		sec = http3.AppendField(sec, ":status", "500")
		sec = http3.AppendField(sec, "content-length", "0")
		return http3.AppendHeaders(b, sec), sec
	}
	if ctx.file != nil {
		ctx.fileIntoOut()
	}
	bodyOK := http1.BodyAllowed(ctx.status) && !ctx.head
	if !st.headersSent {
		st.headersSent = true
		length := len(ctx.out)
		if ctx.head && length == 0 && ctx.headLen >= 0 {
			length = int(ctx.headLen)
		}
		b, sec = appendH3Head(b, sec, ctx, length, scratch)
	}
	if bodyOK && len(ctx.out) > 0 {
		b = http3.AppendData(b, ctx.out)
	}
	return b, sec
}

// appendH3Head appends a HEADERS frame of the native response in ctx;
// length < 0 leaves content-length out (a streamed body).
func appendH3Head(b, sec []byte, ctx *Ctx, length int, scratch *fieldScratch) ([]byte, []byte) {
	sec = http3.AppendSectionPrefix(sec[:0])
	sec = http3.AppendField(sec, ":status", lengthString(ctx.status))
	for _, f := range ctxFields(ctx, length, scratch) {
		sec = http3.AppendField(sec, f.Name, f.Value)
	}
	return http3.AppendHeaders(b, sec), sec
}

// flushCtx is Ctx.Flush on an HTTP/3 stream: the head (once) and the body
// so far go to the loop, and it returns once they are in QUIC's buffer.
func (st *h3stream) flushCtx(ctx *Ctx) error {
	ctx.offLoop() // Auto: the handler leaves the loop first (movedOff)
	if st.onLoop {
		return ErrNotStreamable // Inline mode: the loop must not wait
	}
	ctx.runFlushHook()
	if ctx.file != nil {
		ctx.fileIntoOut()
	}
	b := st.frames[:0]
	if !st.headersSent {
		st.headersSent = true
		b, st.section = appendH3Head(b, st.section, ctx, -1, nil)
	}
	if http1.BodyAllowed(ctx.status) && !ctx.head && len(ctx.out) > 0 {
		b = http3.AppendData(b, ctx.out)
	}
	st.frames = b
	ctx.out = ctx.out[:0]
	if len(b) == 0 {
		return nil
	}
	return st.post(b, false, true)
}

// remoteAddr is the client's address, for Ctx.RemoteAddr.
func (st *h3stream) remoteAddr() net.Addr { return net.UDPAddrFromAddrPort(st.peer) }
