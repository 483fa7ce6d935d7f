package load

import (
	"time"

	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/result"
)

// A TLS connection's handshake sits between connected and ready: the
// transport runs it on a short-lived goroutine of its own, over a dup of
// the socket, and calls back when it ends. The callback only queues the
// connection and wakes the loop; the loop takes the queue after each wait
// (finishHandshakes) and makes the connection ready or fails it. Until
// then the connection is stHandshaking: its readiness events are ignored
// and it is not counted as connected.

// endedHandshake is a connection and the TLS whose handshake ended. The
// connection may have moved on (failed, reopened on a new TLS) before the
// loop looks: the TLS, not the fd, says whether it is still the same one.
type endedHandshake struct {
	c *conn
	t *transport.TLS
}

// handshakeEnded runs on the handshake's goroutine: it queues c and wakes
// its loop, and does nothing else.
func (l *loop) handshakeEnded(c *conn, t *transport.TLS) {
	l.hs.Post(endedHandshake{c: c, t: t}) // false once the loop has ended
}

// startHandshake layers TLS on c's plain transport, just connected, and
// starts the handshake, bounded by the run's Timeout.
func (l *loop) startHandshake(c *conn, now int64) {
	if c.onHandshake == nil {
		c.onHandshake = func(t *transport.TLS) { l.handshakeEnded(c, t) }
	}
	c.tls = transport.NewClientTLS(c.tr, l.e.tlsConfig)
	c.tr = c.tls
	c.state = stHandshaking
	c.handshakeStart = now
	if err := c.tls.Handshake(time.Now().Add(l.e.cfg.Timeout), c.onHandshake); err != nil {
		l.handshakeFailed(c, err, now)
	}
}

// finishHandshakes takes the handshakes that ended and makes their
// connections ready, or fails them.
func (l *loop) finishHandshakes(now int64) {
	l.hs.Take()
	for h, ok := l.hs.Next(); ok; h, ok = l.hs.Next() {
		if h.c.tls == h.t && h.c.state == stHandshaking {
			l.handshakeDone(h.c, now)
		}
	}
}

// handshakeDone makes c ready after its handshake, or fails it.
func (l *loop) handshakeDone(c *conn, now int64) {
	t := c.tls
	_, err := t.HandshakeDone()
	if err != nil {
		l.handshakeFailed(c, err, now)
		return
	}
	st := t.ConnectionState()
	l.tls.handshook(&st, now-c.handshakeStart)
	l.useProtocol(c, st.NegotiatedProtocol)
	l.ready(c, now)
	// The transport's doc: once the handshake is done, treat the socket as
	// readable (an edge may have passed while the loop ignored it).
	if c.state == stActive && c.tls == t {
		l.read(c, 0, now)
	}
}

// handshakeFailed counts a failed handshake, classified, as a failed
// connect (connect_error) and retries after a back-off.
func (l *loop) handshakeFailed(c *conn, err error, now int64) {
	if l.recording {
		l.tls.errors[classifyHandshake(err)]++
	}
	l.connectFailed(c, result.ErrConnect, now)
}

// closeHandshakes stops the loop's handshakes as the loop ends: no callback
// wakes its poller after this, and running handshakes are released.
func (l *loop) closeHandshakes() {
	l.hs.Close()
	for _, c := range l.conns {
		if c.tls != nil {
			c.tls.Release()
			c.tls = nil
		}
	}
}
