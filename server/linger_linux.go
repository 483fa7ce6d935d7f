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
	for reads := 0; reads < maxReadsPerTurn; reads++ {
		n, err := c.t.Read(l.buf[:min(len(l.buf), c.lingerLeft)])
		if n > 0 {
			l.srv.counters.bytesIn.Add(int64(n))
			if c.lingerLeft -= n; c.lingerLeft <= 0 {
				l.closeConn(c)
				return
			}
			continue
		}
		if err != transport.ErrWouldBlock {
			l.closeConn(c) // io.EOF: the client has read the response and closed
		}
		return
	}
	l.readLater(c, false) // a fast sender gets a turn, not the loop
}
