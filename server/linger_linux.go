//go:build linux

package server

import (
	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/transport"
)

// closeAfterResponse closes c once its last response is written: at once
// if the client has nothing left to send, else with a lingering close (see
// linger.go). The loop owns c.
func (l *loop) closeAfterResponse(c *conn) {
	if !c.linger || c.hijacked.Load() || l.e.stopping.Load() {
		l.closeConn(c)
		return
	}
	c.linger, c.closing = false, false
	c.release()
	c.closeNotify() // TLS: the client reads the end of the stream, not a truncation
	if unix.Shutdown(c.fd, unix.SHUT_WR) != nil {
		l.closeConn(c)
		return
	}
	c.lingering = true
	c.lingerLeft = lingerBytes
	c.state.Store(stIdle) // a worker may have given it back busy: the loop's now
	l.setDeadline(c, l.e.now()+int64(lingerTime))
	l.discard(c)
}

// discard reads and drops what a lingering connection's client still
// sends, and closes the connection at the client's end of stream, past
// lingerBytes, or on an error. Every read lands in the loop's buffer, so a
// lingering connection holds no memory of its own.
func (l *loop) discard(c *conn) {
	// One small read a turn: a lingering client gets just enough to finish
	// sending, while the clients still being served get the loop. Its
	// kernel buffers fill in between, and TCP slows it down.
	n, err := c.t.Read(l.seat.buf[:min(len(l.seat.buf), lingerReadPerTurn, c.lingerLeft)])
	switch {
	case n > 0:
		l.srv.counters.bytesIn.Add(int64(n))
		if c.lingerLeft -= n; c.lingerLeft <= 0 {
			l.closeConn(c)
			return
		}
		l.readLater(c, false)
	case err != transport.ErrWouldBlock:
		l.closeConn(c) // io.EOF: the client has read the response and closed
	}
}

// lingerReadPerTurn is what a lingering connection may read each time its
// loop turns to it. Measured beside 50 endless uploads (gust bench
// big-bodies-50, 2026-11-24): with four 64 KiB reads a turn the other
// clients kept 11% of their req/s, with one 16 KiB read 20%, with one
// 4 KiB read 82% (92% through the adapter); a client's 2 MB upload still
// drains well within lingerTime (server/clients_test.go).
const lingerReadPerTurn = 4 << 10
