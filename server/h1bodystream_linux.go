//go:build linux

package server

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/transport"
)

// errBodyTooLarge is what reading a streamed chunked body past
// MaxBodyBytes returns, in net/http's words.
var errBodyTooLarge = errors.New("http: request body too large")

// maxDrain is how much of a body its handler left unread the server reads
// and discards to keep the connection; past it, the connection closes (as
// net/http does).
const maxDrain = 256 << 10

// bodyStream is a request body read from the socket as the handler reads
// it, for http.Handlers (the adapter), whose bodies are io.Readers: the
// server does not wait for a large upload before calling the handler, and
// does not hold it whole. It is used on a worker, which owns the
// connection, only when the body had not all arrived with the head.
type bodyStream struct {
	c        *conn
	chunked  bool
	left     int64 // Content-Length bytes not yet read
	pre      []byte
	raw      []byte // received bytes not yet decoded (chunked) or delivered
	dec      http1.ChunkedDecoder
	scratch  []byte // from bufPool: what chunked reads land in
	total    int64  // body bytes delivered
	wire     int64  // bytes read from the socket
	max      int64
	deadline time.Time
	expect   bool // send 100 Continue before the first read from the socket
	done     bool
	settled  bool // settle has drained (or given up on) the rest, once
	err      error
}

// continueLine is 100 Continue, built once: fill sends it from a worker.
var continueLine = http1.AppendContinue(nil)

var streamPool = sync.Pool{New: func() any { return new(bodyStream) }}

// newBodyStream starts streaming the body of the request whose head spans
// data[:headLen]; cp is how far the loop got decoding a chunked body in
// place.
func newBodyStream(c *conn, ctx *Ctx, data []byte, headLen int, cp *chunkProgress) *bodyStream {
	b := streamPool.Get().(*bodyStream)
	*b = bodyStream{c: c, max: c.l.srv.cfg.MaxBodyBytes,
		deadline: time.Now().Add(c.l.srv.cfg.ReadTimeout),
		expect:   ctx.req.Expect100 && !c.rd.sentContinue}
	if ctx.req.Chunked {
		b.chunked = true
		b.pre = data[headLen : headLen+cp.body]
		b.raw = data[headLen+cp.raw:]
		b.dec = cp.dec
		b.total = int64(cp.body)
	} else {
		b.left = ctx.req.ContentLength
		b.raw = data[headLen:]
	}
	cp.reset()
	return b
}

// Read reads the body, waiting for the client as needed, up to ReadTimeout
// from the start of the request.
func (b *bodyStream) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.done {
		return 0, io.EOF
	}
	if !b.chunked {
		return b.readLength(p)
	}
	return b.readChunked(p)
}

func (b *bodyStream) readLength(p []byte) (int, error) {
	if b.left == 0 {
		b.done = true
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.left)]
	var n int
	if len(b.raw) > 0 {
		n = copy(p, b.raw)
		b.raw = b.raw[n:]
	} else {
		// Straight from the socket into the caller's buffer: never past
		// the body, so the next request stays in the socket.
		var err error
		if n, err = b.fill(p); err != nil {
			return 0, b.fail(err)
		}
	}
	b.left -= int64(n)
	b.total += int64(n)
	if b.left == 0 {
		b.done = true
	}
	return n, nil
}

func (b *bodyStream) readChunked(p []byte) (int, error) {
	for {
		if len(b.pre) > 0 {
			n := copy(p, b.pre)
			b.pre = b.pre[n:]
			return n, nil
		}
		for len(b.raw) > 0 {
			k, data, done, err := b.dec.Decode(b.raw)
			if err != nil {
				return 0, b.fail(err)
			}
			b.raw = b.raw[k:]
			if done {
				b.done = true
				return 0, io.EOF
			}
			if len(data) > 0 {
				b.total += int64(len(data))
				if b.total > b.max {
					return 0, b.fail(errBodyTooLarge)
				}
				// data lies in b.raw's past; what p cannot take waits in pre.
				n := copy(p, data)
				b.pre = data[n:]
				return n, nil
			}
		}
		if b.scratch == nil {
			b.scratch = getBuf()
		}
		n, err := b.fill(b.scratch[:cap(b.scratch)])
		if err != nil {
			return 0, b.fail(err)
		}
		b.raw = b.scratch[:n]
	}
}

// fill reads from the socket into p, waiting for it to become readable.
func (b *bodyStream) fill(p []byte) (int, error) {
	c := b.c
	if b.expect {
		b.expect = false
		c.rd.sentContinue = true
		if err := c.writeAll(continueLine); err != nil {
			return 0, err
		}
	}
	var timer *time.Timer
	defer func() {
		c.waiting.Store(false)
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		n, err := c.t.Read(p)
		switch {
		case n > 0:
			c.l.srv.counters.bytesIn.Add(int64(n))
			b.wire += int64(n)
			return n, nil
		case err == io.EOF:
			return 0, io.ErrUnexpectedEOF
		case err != transport.ErrWouldBlock:
			return 0, err
		}
		if !c.waiting.Load() {
			if c.ready == nil {
				c.ready = make(chan struct{}, 1)
			}
			c.waiting.Store(true) // then read once more: the event may have come already
			continue
		}
		if timer == nil {
			d := time.Until(b.deadline)
			if d <= 0 {
				return 0, errReadTimeout
			}
			timer = time.NewTimer(d)
		}
		select {
		case <-c.ready:
		case <-timer.C:
			return 0, errReadTimeout
		}
	}
}

var errReadTimeout = errors.New("server: request body read timeout")

func (b *bodyStream) fail(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	b.err = err
	return err
}

// unread returns the bytes received and not yet read: the rest of the
// body as far as it arrived, and what followed it (for Hijack).
func (b *bodyStream) unread() []byte {
	if len(b.pre) > 0 {
		return nil // decoded data would be mixed with raw bytes; a hijacker must not read the body anyway
	}
	return b.raw
}

// Close is a no-op: what the handler leaves unread is drained (or the
// connection closed) once it returns.
func (b *bodyStream) Close() error { return nil }

// settle is called before the response head is written, once the handler
// has returned: it reads what the handler left of the body (up to maxDrain,
// as net/http does) and reports whether the body has ended, so the
// connection can be kept. If not, the response says Connection: close and
// the connection ends with a lingering close (RFC 9112 section 9.6). A client
// that waits for 100 Continue is not asked for a body nobody wants.
func (b *bodyStream) settle() bool {
	if b.done {
		return true
	}
	if b.settled || b.expect || b.err != nil || !b.chunked && b.left > maxDrain {
		return false
	}
	b.settled = true
	// Bounded by the bytes on the wire, not the body's: chunk framing may
	// carry one data byte in sixty.
	var sink [4096]byte
	for from := b.wire; b.wire-from < maxDrain && b.err == nil && !b.done; {
		b.Read(sink[:])
	}
	return b.err == nil && b.done
}

// finish settles what the handler left of the body (see settle) and
// returns the bytes received after it, the start of the next request; ok
// is false if the connection cannot be reused. The result is only valid
// until release.
func (b *bodyStream) finish() (rest []byte, ok bool) {
	if !b.settle() {
		return nil, false
	}
	return b.raw, true
}

// release returns the stream and its buffer to their pools.
func (b *bodyStream) release() {
	if b.scratch != nil {
		putBuf(b.scratch)
	}
	*b = bodyStream{}
	streamPool.Put(b)
}
