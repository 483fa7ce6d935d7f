//go:build linux

package server

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/fileserve"
	"github.com/gust-http/gust/internal/sys"
	"github.com/gust-http/gust/internal/transport"
)

// Sending a file body (filebody.go) on a connection, after its head. On
// plain TCP the file's ranges go out with sendfile(2), zero copy; over a
// layered transport (TLS: kTLS is not used, see docs) each piece is read
// into c.out, a pooled buffer, and written through it. Nothing waits: a
// socket that takes no more leaves c.file where it got to, c.blocked set,
// and the loop goes on when the socket is writable (h1proto.writable); a
// worker waits for that as writeAll does.

// fileChunk is how much of a file a layered transport gets per write.
const fileChunk = 64 << 10

// maxSendfile bounds one sendfile(2) call (the kernel's own bound is
// about 2 GiB).
const maxSendfile = 1 << 30

// corkAbove is the body size from which the socket is corked (TCP_CORK)
// while a file body goes out over plain TCP, and uncorked at its end, as
// nginx's tcp_nopush does: each sendfile(2) call that ends with the
// socket full would otherwise push a partial segment, and segments stay
// full-sized. Measured on a 10 MiB file at 200 connections: 11% less
// server CPU per byte (docs/BENCHMARKS.md). Small bodies go out in one
// call and would only pay the two setsockopt calls.
const corkAbove = 256 << 10

// pushFile sends what the socket takes now of c.file, with c.out (bytes
// queued before it, or a chunk read for TLS) first. It returns nil once
// everything is sent (c.file released, c.out back in the pool),
// transport.ErrWouldBlock when the socket is full (c.blocked set), or why
// the response cannot go on.
func (c *conn) pushFile() error {
	b := c.file
	if !b.corked && !c.layered && b.total >= corkAbove {
		b.corked = true
		unix.SetsockoptInt(c.fd, unix.IPPROTO_TCP, unix.TCP_CORK, 1)
	}
	for {
		if len(c.out) > 0 || c.blocked {
			var p []byte // nil: flush what the transport holds
			if len(c.out) > 0 {
				p = c.out
			}
			n, err := c.t.Write(p)
			if n > 0 {
				c.l.srv.counters.bytesOut.Add(int64(n))
			}
			if err == transport.ErrWouldBlock {
				c.out = c.out[:copy(c.out, c.out[n:])]
				c.blocked = true
				return err
			}
			if err != nil {
				return err
			}
			c.out = c.out[:0]
			c.blocked = false
		}
		if b.i == len(b.segs) {
			if b.corked {
				// Out goes the last partial segment, now: a corked socket
				// would hold it for 200 ms.
				unix.SetsockoptInt(c.fd, unix.IPPROTO_TCP, unix.TCP_CORK, 0)
			}
			c.dropFile()
			return nil
		}
		s := &b.segs[b.i]
		if !b.queued {
			b.queued = true
			if s.hi > s.lo {
				if c.out == nil {
					c.out = getBuf()
				}
				c.out = append(c.out, b.bytes[s.lo:s.hi]...)
				continue
			}
		}
		if s.n == 0 {
			b.i++
			b.queued = false
			continue
		}
		if c.layered {
			if c.out == nil {
				c.out = getBuf()
			}
			want := int(min(s.n, fileChunk))
			if cap(c.out) < want {
				c.out = make([]byte, 0, fileChunk)
			}
			n, _ := b.ref.ReadAt(c.out[:want], s.off)
			if n == 0 {
				return errFileTruncated // or unreadable: either way the body cannot go on
			}
			c.out = c.out[:n]
			s.off += int64(n)
			s.n -= int64(n)
			continue
		}
		off := s.off
		n, err := sys.Sendfile(c.fd, b.ref.FD(), &off, int(min(s.n, maxSendfile)))
		if n > 0 {
			c.l.srv.counters.bytesOut.Add(int64(n))
			s.off += int64(n)
			s.n -= int64(n)
			continue
		}
		switch err {
		case unix.EAGAIN:
			c.blocked = true
			return transport.ErrWouldBlock
		case unix.EINTR:
			continue
		case nil:
			return errFileTruncated // n == 0: the file ends before the range
		}
		return err
	}
}

// dropFile forgets c.file, sent or not, and gives back c.out.
func (c *conn) dropFile() {
	if c.file != nil {
		c.file.release()
		c.file = nil
	}
	if c.out != nil && len(c.out) == 0 {
		putBuf(c.out)
		c.out = nil
	}
}

// sendFile starts or goes on with c.file on the loop. It returns false if
// c was closed (the file could not be sent). With c.file still set, the
// socket is full: c.blocked is set and the deadline counts WriteTimeout
// from this progress.
func (l *loop) sendFile(c *conn) bool {
	switch err := c.pushFile(); err {
	case nil:
		return true
	case transport.ErrWouldBlock:
		l.setDeadline(c, l.e.now()+int64(l.srv.cfg.WriteTimeout))
		return true
	}
	l.closeConn(c)
	return false
}

// takeFile moves the file body of the response just served from ctx to
// c and starts sending it after the head (out). It returns false if c
// was closed.
func (l *loop) takeFile(c *conn, st *seat, ctx *Ctx, out []byte) bool {
	c.file, ctx.file = ctx.file, nil
	if !c.layered && !c.blocked && len(out) > 0 && c.file.startsWithFile() {
		// On plain TCP the head goes with MSG_MORE, so that it leaves
		// with the file's first bytes rather than in a packet of its own.
		st.out = out[:0]
		n, err := sys.SendMore(c.fd, out)
		switch {
		case err == nil:
			l.srv.counters.bytesOut.Add(int64(n))
			out = out[n:]
		case err != unix.EAGAIN && err != unix.EINTR:
			l.closeConn(c)
			return false
		}
		if len(out) > 0 {
			if c.out == nil {
				c.out = getBuf()
			}
			c.out = append(c.out, out...) // pushFile writes it first
		}
		return l.sendFile(c)
	}
	if !l.writeOut(c, st, out) {
		return false
	}
	return l.sendFile(c)
}

// writeFile sends ctx's file body from a worker (after its head), waiting
// for the socket as writeAll does, up to WriteTimeout without progress.
func (c *conn) writeFile(ctx *Ctx) error {
	c.file, ctx.file = ctx.file, nil
	var timer *time.Timer
	defer func() {
		c.waiting.Store(false)
		if timer != nil {
			timer.Stop()
		}
		if c.file != nil {
			c.dropFile()
		}
		if c.out != nil {
			putBuf(c.out)
			c.out = nil
		}
		c.blocked = false
	}()
	for {
		err := c.pushFile()
		if err != transport.ErrWouldBlock {
			return err
		}
		if !c.waiting.Load() {
			if c.ready == nil {
				c.ready = make(chan struct{}, 1)
			}
			c.waiting.Store(true)
			continue // the socket may have drained before the loop saw the flag
		}
		if timer == nil {
			timer = time.NewTimer(c.l.srv.cfg.WriteTimeout)
		} else {
			timer.Reset(c.l.srv.cfg.WriteTimeout)
		}
		select {
		case <-c.ready:
		case <-timer.C:
			return errWriteTimeout
		}
	}
}

// dupFile takes a reference of the server's own to the open file fd: a
// duplicate of the descriptor, which the response closes when sent.
func dupFile(fd uintptr, name string) (*fileserve.File, error) {
	dup, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return fileserve.NewFile(os.NewFile(uintptr(dup), name)), nil
}
