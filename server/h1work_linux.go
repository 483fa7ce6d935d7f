//go:build linux

package server

import (
	"errors"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// The worker's side of a connection (Pooled and Auto modes): serving the
// requests its loop handed over, streamed bodies, and reads and writes
// that may wait for the socket.

// run is serveWork, for the worker pool (task).
func (c *conn) run() { c.serveWork() }

// serveWork is a worker's job: serve the requests in c.in, in order,
// starting with the one the loop parsed if any, write the responses, read
// on while the socket has more, then give the connection back to its loop.
func (c *conn) serveWork() {
	l := c.l
	s := l.srv
	ctx, first, firstLen, firstBody := c.parsed, c.parsed != nil, int(c.parsedLen), c.parsedBody
	c.parsed = nil
	if ctx == nil {
		ctx = getCtx(s)
	}
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
	at := site{ctx: ctx, peer: c, sink: c, stream: true, files: true}
	for {
		data := c.in
		closing := false
		for len(data) > 0 {
			var kind stepKind
			var rest []byte
			var headLen int
			switch {
			case first && firstBody:
				kind, rest, headLen = stepStream, data, firstLen
			case first:
				out = s.serveParsed(&at, &c.rd, data, firstLen, out)
				kind, rest = stepServed, data[firstLen:]
			default:
				kind, rest, out, headLen = s.step(&at, &c.rd, data, out)
			}
			first = false
			if kind == stepStream {
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
				out, ok = c.serveStreamed(ctx, data, headLen, out)
				if !ok {
					closing = true
					break
				}
				data = c.in
				if ctx.upgrade != nil {
					c.upgradeAfterWork(ctx, data, out)
					return
				}
				continue
			}
			data = rest
			if kind == stepServed && ctx.file != nil {
				// The head, then the file: nothing else goes between.
				if c.writeAll(out) != nil || c.writeFile(ctx) != nil {
					closing = true
					break
				}
				out = out[:0]
			}
			if kind != stepServed {
				closing = kind == stepBad
				c.linger = closing // the rest of the input is not read
				break
			}
			if ctx.upgrade != nil {
				c.upgradeAfterWork(ctx, rest, out)
				return
			}
			if ctx.closeConn {
				closing, c.linger = true, len(rest) > 0
				break
			}
			if len(out) >= 64<<10 {
				if c.writeAll(out) != nil {
					closing = true
					break
				}
				out = out[:0]
			}
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
		if closing || s.shutting.Load() && len(c.in) == 0 && (c.drainNow || s.drainingAll()) {
			c.state.Store(stBusy)
			l.giveBack(c)
			return
		}
		// Bytes the transport holds were announced once, when they reached
		// the socket: read them before the loop takes the connection back.
		if c.moreToRead || c.t.Buffered() > 0 {
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
	bs := newBodyStream(c, ctx, data, headLen, c.rd.progress())
	defer bs.release()
	ctx.stream = bs
	ctx.w = c
	ctx.peer = c
	ctx.files = true
	out = c.l.srv.serve(ctx, out)
	if ctx.file != nil {
		if c.writeAll(out) != nil || c.writeFile(ctx) != nil {
			return out[:0], false
		}
		out = out[:0]
	}
	c.rd.sentContinue = false
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
		c.linger = !ok || len(rest) > 0 // the client may still be sending
		return out, false
	}
	c.keep(rest) // rest is a view of c.in or of the stream's buffer
	return out, true
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
		n, err := c.t.Read(c.in[len(c.in):min(cap(c.in), limit)])
		if n > 0 {
			c.l.srv.counters.bytesIn.Add(int64(n))
			c.in = c.in[:len(c.in)+n]
			continue
		}
		return err == transport.ErrWouldBlock // else io.EOF or a failure
	}
}

var errWriteTimeout = errors.New("server: write timeout")

// writeAll writes p from a worker, waiting for the socket to drain when it
// is full, up to WriteTimeout. It returns once the transport holds none of
// p either.
func (c *conn) writeAll(p []byte) error {
	var timer *time.Timer
	defer func() {
		c.waiting.Store(false)
		if timer != nil {
			timer.Stop()
		}
	}()
	if len(p) == 0 {
		return nil
	}
	for {
		n, err := c.t.Write(p)
		if n > 0 {
			c.l.srv.counters.bytesOut.Add(int64(n))
		}
		p = p[n:]
		if err == nil {
			return nil
		}
		if err != transport.ErrWouldBlock {
			return err
		}
		if len(p) == 0 {
			p = nil // the transport took it all but holds some: Write(nil) flushes
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
}

// upgradeAfterWork finishes a request whose handler accepted a WebSocket
// upgrade, on the worker that owns c: the 101 (at the end of out) is
// written, and c, switched to WebSocket, goes back to its loop.
func (c *conn) upgradeAfterWork(ctx *Ctx, rest, out []byte) {
	up := ctx.upgrade
	ctx.upgrade = nil
	if c.writeAll(out) != nil {
		c.state.Store(stBusy)
		c.l.giveBack(c)
		return
	}
	c.upgradeOffLoop(up, rest)
}
