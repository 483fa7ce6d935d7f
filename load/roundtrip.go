package load

import (
	"errors"
	"io"

	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/result"
)

// One round trip of a connection, top to bottom as wrk.c's
// socket_readable and response_complete read: the poller says the socket
// is ready (handle); the loop reads what arrived (read) and feeds it to
// the connection's session (feed), which completes responses through the
// sink (sink.go); the schedule then refills the connection with its next
// requests (refill, fillAndWrite), each encoded by the session (send), and
// they go out in one write (write, flush). The loop's only reads and
// writes of a connection are here, through its transport.Conn: plain TCP,
// or TLS layered on it. Connecting, failing and reopening are
// lifecycle.go's.

// handle reacts to readiness of c's socket.
func (l *loop) handle(c *conn, flags uint32, now int64) {
	if c.h3 != nil {
		l.handleQUIC(c, flags, now)
		return
	}
	if c.state == stConnecting {
		if flags&(poll.Writable|poll.Hangup) == 0 {
			return
		}
		if err := connectError(c.fd); err != nil {
			l.connectFailed(c, classifyConnect(err), now)
			return
		}
		l.connected(c, now)
	}
	if c.state != stActive {
		return // stHandshaking: the handshake's goroutine has the socket
	}
	if flags&poll.Writable != 0 && (c.wleft > 0 || c.pending()) {
		if !l.flush(c, now) {
			return
		}
	}
	if flags&(poll.Readable|poll.Hangup) != 0 {
		l.read(c, flags, now)
	}
}

// read drains c's transport and feeds what arrived to its session.
func (l *loop) read(c *conn, flags uint32, now int64) {
	for {
		n, at, err := l.readFrom(c, now)
		if n > 0 {
			if l.recording {
				l.stats.bytesRead += int64(n)
				l.secBytes += int64(n)
			}
			if !l.feed(c, l.buf[:n], at) {
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
		if c.state == stHandshaking { // QUIC's: refused by ICMP, say
			l.connectFailed(c, classifyConnect(err), now)
			return
		}
		l.fail(c, result.ErrReset, now)
		return
	}
	if c.ses.closing() && c.inflight() == 0 {
		if _, ok := c.ses.(*wsSession); ok && c.wleft > 0 && !l.flush(c, now) {
			return // failed: the reply to the server's close could not go out
		}
		l.reopen(c, now)
		return
	}
	// The next requests are timed from now, not from when the loop came
	// to c: reading and feeding what arrived took time (at a hundred
	// events a read, tens of microseconds) that is not the server's.
	l.refill(c, l.e.now())
}

// feed hands received bytes to c's session; false means c failed and was
// closed.
func (l *loop) feed(c *conn, data []byte, now int64) bool {
	l.dv = delivery{l: l, c: c, now: now}
	kind, ok := c.ses.feed(data, &l.dv)
	switch {
	case ok:
	case kind == result.ErrUpgrade:
		l.connectFailed(c, kind, now) // a refused upgrade is retried after a pause, as a refused connect is
	case c.state == stHandshaking: // a QUIC handshake that failed
		if kind != result.ErrConnectTimeout {
			kind = result.ErrConnect
		}
		l.connectFailed(c, kind, now)
	default:
		l.fail(c, kind, now)
	}
	return ok
}

// refill sends as many requests as the schedule allows, in one write. Bytes
// the session queued on its own (HTTP/2's SETTINGS ACK and WINDOW_UPDATE,
// sink.reply) go out in the same write; a write the socket took only part
// of waits for writability instead.
func (l *loop) refill(c *conn, now int64) {
	if c.state != stActive || c.wleft > 0 && c.woff > 0 {
		return
	}
	l.fillAndWrite(c, c.wbuf[:c.wleft], now)
}

// fillAndWrite appends the requests the schedule gives c to buf and
// writes them.
func (l *loop) fillAndWrite(c *conn, buf []byte, now int64) {
	c.wbuf = buf
	l.sched.fill(l, c, now)
	if len(c.wbuf) > 0 || c.pending() {
		l.write(c, now)
	}
}

// send encodes one request for c and records it as in flight, sent (or
// meant to be sent) at sent.
func (l *loop) send(c *conn, req *request, sent int64, meta uint32, now int64) {
	if c.inflight() == 0 {
		c.since = now
		l.watchConn(c)
	}
	c.wbuf = c.ses.send(c.wbuf, req, exchange{sent: sent, meta: meta})
	l.inflight++
}

// write sends c's encoded requests, in one write if the socket takes them.
func (l *loop) write(c *conn, now int64) {
	c.woff, c.wleft = 0, len(c.wbuf)
	l.flush(c, now)
}

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
	if c.h3 != nil {
		if n := c.h3.link.takeWritten(); l.recording {
			l.stats.bytesWritten += int64(n)
		}
		l.armQUIC(c)
	}
	return true
}
