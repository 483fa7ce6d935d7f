package load

import (
	"errors"
	"io"

	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/result"
)

// The loop's only reads and writes of a connection are here, through its
// transport.Conn: plain TCP, or TLS layered on it.

// flush writes what is left of c's write buffer, and the records a TLS
// transport still holds; false means c failed and was closed.
func (l *loop) flush(c *conn, now int64) bool {
	for c.wleft > 0 || c.pending() {
		n, err := c.tr.Write(c.wbuf[c.woff : c.woff+c.wleft])
		if n > 0 {
			c.woff += n
			c.wleft -= n
			if l.recording {
				l.stats.bytesWritten += int64(n)
			}
		}
		if err != nil {
			if errors.Is(err, transport.ErrWouldBlock) {
				return true // the poller says when to go on
			}
			l.fail(c, result.ErrReset, now)
			return false
		}
	}
	return true
}

// read drains c's transport and feeds what arrived to its session.
func (l *loop) read(c *conn, flags uint32, now int64) {
	for {
		n, err := c.tr.Read(l.buf)
		if n > 0 {
			if l.recording {
				l.stats.bytesRead += int64(n)
				l.secBytes += int64(n)
			}
			if !l.feed(c, l.buf[:n], now) {
				return
			}
			// A short read drained the socket; edge-triggered polling reports
			// the next arrival. After a hang-up, read on to see the EOF. Bytes
			// the transport holds (decrypted TLS records) no event announces.
			// A multiplexed session reads on until the socket says so: what
			// arrives meanwhile joins this turn's completions, and their
			// next requests go out in one write instead of many.
			if n < len(l.buf) && flags&poll.Hangup == 0 && c.tr.Buffered() == 0 && !c.ses.multiplexed() {
				break
			}
			continue
		}
		if err == io.EOF {
			l.peerClosed(c, now)
			return
		}
		if errors.Is(err, transport.ErrWouldBlock) {
			break
		}
		l.fail(c, result.ErrReset, now)
		return
	}
	if c.ses.closing() && c.inflight() == 0 {
		l.reopen(c, now)
		return
	}
	l.refill(c, now)
}
