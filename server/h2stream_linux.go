//go:build linux

package server

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// h2stream is one HTTP/2 request and its response. The loop creates it
// from the request's HEADERS; a handler runs on it once (on the loop, on
// a worker, or on the loop and then off it: Auto mode); it ends when the
// response is complete or the stream is reset.
type h2stream struct {
	id  uint32
	hc  *h2conn
	srv *Server

	// The request, set on the loop before dispatch and read-only after.
	raw      []byte // method, target, authority and fields copied: req's views point here
	req      head.Request
	body     []byte // the whole body, for handlers that take it whole
	streamed bool   // the body is read as the handler goes (the adapter in Pooled and Auto modes)
	noBody   bool   // the request ended with its HEADERS
	tunnel   bool   // an extended CONNECT (RFC 8441): DATA is the tunnel's, not a body

	// The streamed body, guarded by mu.
	mu      sync.Mutex
	in      []byte // received; in[inOff:] not yet read
	inOff   int
	eof     bool  // END_STREAM received
	inErr   error // the stream or its connection ended first
	trailer []http2.Field
	cancel  context.CancelFunc // the adapter's request context
	wake    chan struct{}      // signalled when in, eof or inErr change

	gone atomic.Bool // reset, or its connection closed: the handler's output goes nowhere
	// asyncBytes: flushed body bytes posted without waiting and not yet
	// framed; past asyncFlushLimit a Flush waits again.
	asyncBytes atomic.Int64

	// Posted by the worker, guarded by hc.mu.
	posted  h2part
	hasPost bool
	credit  int  // streamed body bytes the handler took: window to give back
	queued  bool // in hc.ready
	// wsBack: a WebSocket callback moved off the loop has handed the
	// stream back (h2wsauto_linux.go).
	wsBack bool
	// ack is what a posting handler's Flush waits on: made before a
	// worker or a handler moved off its loop posts (h2Submit,
	// loop.moveOff), nil while the handler runs on its loop.
	ack chan error

	// The worker's.
	headersPosted bool

	// The loop's.
	next       h2part // taken from posted
	hasNext    bool
	nextCredit int
	send       h2part // the part being given to the engine
	inSending  bool
	dispatched bool
	uncredited int   // body bytes received and not yet given back as window
	since      int64 // last progress of send, for WriteTimeout
	pend       int   // the engine's Pending when last looked at

	// A WebSocket on the stream (h2ws_linux.go), the loop's.
	ws       *WSConn // set once the upgrade's 200 went out
	wsIn     []byte  // a partial frame carried to the next DATA
	wsOut    []byte  // frames waiting for the engine (the outbox, pongs, the close)
	early    []byte  // DATA that arrived before the handler answered
	earlyEnd bool
	// Auto mode (h2wsauto_linux.go): DATA waits in wsIn to be fed at the
	// end of the turn (wsQueued), its window held (wsUnfed) until then;
	// END_STREAM seen (wsEnd). While a callback is off the loop (wsOff),
	// wsIn and the engine are its goroutine's and DATA waits in wsHold.
	wsHold   []byte
	wsUnfed  int
	wsEnd    bool
	wsQueued bool
	wsOff    bool

	// Room for a typical request in the stream's own allocation.
	rawArr      [256]byte
	hdrArr      [8]head.Field
	started     int64 // when HEADERS arrived, for ReadTimeout
	loopBodyBuf bool  // body is a pool buffer the loop frees if no handler took it
}

// h2part is a piece of a response handed to the loop: headers (status >
// 0), body bytes, and whether the response ends (with trailers, if any).
type h2part struct {
	status   int
	fields   []http2.Field
	body     []byte
	own      []byte // a pool buffer body lies in, freed once sent; nil if the worker keeps the bytes
	end      bool
	endSent  bool
	trailers []http2.Field
	wait     bool // the worker waits on ack until body is framed
	// async: body bytes of flushes the worker did not wait for, counted
	// in the stream's asyncBytes until framed (h2merge_linux.go).
	async int
	reset bool // the handler failed after sending headers: reset the stream
	// ws: the handler accepted a WebSocket on an extended CONNECT; the
	// part is its 200 (h2ws_linux.go).
	ws *wsUpgrade
	// file: after body, the part goes on with a file body, read into own
	// a piece at a time as the windows allow (h2file_linux.go).
	file *fileBody
}

func (p *h2part) free() {
	if p.own != nil {
		putBuf(p.own)
	}
	if p.file != nil {
		p.file.release()
	}
	*p = h2part{}
}

// newH2Stream copies a request's head out of the engine (whose storage is
// reused once the stream closes) into one buffer the Ctx views point to.
func newH2Stream(hc *h2conn, e *http2.ServerEvent, now int64) *h2stream {
	st := &h2stream{id: e.StreamID, hc: hc, srv: hc.c.l.srv, started: now, noBody: e.EndStream}
	size := len(e.Method) + len(e.Scheme) + len(e.Path) + len(e.Authority) + len(e.Protocol)
	for _, f := range e.Header {
		size += len(f.Name) + len(f.Value)
	}
	raw := st.rawArr[:0]
	if size > len(st.rawArr) {
		raw = make([]byte, 0, size)
	}
	view := func(s string) []byte {
		start := len(raw)
		raw = append(raw, s...)
		return raw[start:len(raw):len(raw)]
	}
	r := &st.req
	r.Major, r.Minor, r.ContentLength = 2, 0, -1
	r.Method = view(e.Method)
	r.Scheme = view(e.Scheme)
	r.Target = view(e.Path)
	r.SplitTarget()
	if e.Authority != "" {
		r.Host = view(e.Authority)
	}
	r.Headers = st.hdrArr[:0]
	if len(e.Header) >= len(st.hdrArr) {
		r.Headers = make([]head.Field, 0, len(e.Header)+1)
	}
	if e.Protocol != "" {
		// As Go's net/http shows it: a field named ":protocol".
		st.tunnel = true
		r.Headers = append(r.Headers, head.Field{Name: []byte(":protocol"), Value: view(e.Protocol)})
	}
	for _, f := range e.Header {
		h := head.Field{Name: view(f.Name), Value: view(f.Value)}
		switch f.Name {
		case "host":
			if r.Host == nil {
				r.Host = h.Value
			}
		case "content-length":
			r.ContentLength = http1.ParseLength(h.Value)
		}
		r.Headers = append(r.Headers, h)
	}
	st.raw = raw
	return st
}

// fill puts the request into ctx for a handler.
func (st *h2stream) fill(ctx *Ctx) {
	ctx.reset()
	headers := append(ctx.req.Headers[:0], st.req.Headers...)
	ctx.req = st.req
	ctx.req.Headers = headers
	ctx.rawHead = st.raw
	ctx.body = st.body
	ctx.head = string(st.req.Method) == "HEAD"
	ctx.peer = st.hc.c
	ctx.onStream = st
	ctx.srv = st.srv
	ctx.files = true // a file body stays a file: the loop reads it as the windows allow
}

// fail ends the stream for its handler: body reads and response writes
// return err from now on, and the adapter's context is cancelled.
func (st *h2stream) fail(err error) {
	st.gone.Store(true)
	st.mu.Lock()
	if st.inErr == nil && !st.eof {
		st.inErr = err
	}
	cancel := st.cancel
	st.mu.Unlock()
	st.signal()
	if cancel != nil {
		cancel()
	}
	if st.ack != nil {
		select {
		case st.ack <- err:
		default:
		}
	}
}

func (st *h2stream) signal() {
	if st.wake != nil {
		select {
		case st.wake <- struct{}{}:
		default:
		}
	}
}

// releaseSend frees what the loop holds of the response.
func (st *h2stream) releaseSend() {
	if st.ws != nil {
		st.releaseWS()
	} else if st.early != nil {
		putBuf(st.early)
		st.early = nil
	}
	st.send.free()
	st.next.free()
	st.hasNext = false
	if st.loopBodyBuf && !st.dispatched && st.body != nil {
		putBuf(st.body)
		st.body = nil
	}
}

// take moves what the worker posted to the loop's side; hc.mu is held.
func (st *h2stream) take() {
	if st.hasPost {
		st.next, st.hasNext = st.posted, true
		st.posted, st.hasPost = h2part{}, false
	}
	st.nextCredit += st.credit
	st.credit = 0
	st.queued = false
}

// dropTaken discards what was taken for a connection that closed.
func (st *h2stream) dropTaken() {
	if st.hasNext {
		if st.next.wait {
			select {
			case st.ack <- errConnClosed:
			default:
			}
		}
		st.next.free()
		st.hasNext = false
	}
}

// post hands a part (when p is not nil) and body credit to the loop, from
// a worker. It fails once the stream is gone.
func (st *h2stream) post(p *h2part, credit int) error {
	hc := st.hc
	hc.mu.Lock()
	if hc.dead || st.gone.Load() {
		hc.mu.Unlock()
		return errStreamGone
	}
	if p != nil {
		if st.hasPost {
			mergePart(&st.posted, p) // a flush not waited for is still there
		} else {
			st.posted, st.hasPost = *p, true
		}
	}
	st.credit += credit
	wake := st.readyLocked()
	hc.mu.Unlock()
	if wake {
		hc.queue()
	}
	return nil
}

// readyLocked puts st on hc's list of streams with posts, once per batch;
// hc.mu is held. True when hc must be queued on its loop (hc.queue).
func (st *h2stream) readyLocked() bool {
	hc := st.hc
	if !st.queued {
		st.queued = true
		hc.ready = append(hc.ready, st)
	}
	wake := !hc.queued
	hc.queued = true
	return wake
}

// postWait posts p and waits until the loop has given its body to the
// engine, which keeps a worker's memory per stream to one part.
func (st *h2stream) postWait(p *h2part) error {
	p.wait = true
	if err := st.post(p, 0); err != nil {
		p.free()
		return err
	}
	return <-st.ack
}
