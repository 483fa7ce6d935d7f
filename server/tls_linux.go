//go:build linux

package server

import (
	"crypto/tls"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/internal/mailbox"
	"github.com/gust-http/gust/internal/transport"
)

// TLS on the event loops. An accepted socket's Plain is wrapped in a
// server transport.TLS whose handshake runs on a short-lived goroutine
// (transport/tlshandshake.go); meanwhile the loop ignores the connection
// (its reads would block). The handshake's callback queues the TLS and
// wakes the loop, which finds the connection by its *TLS (the fd may have
// been closed and reused meanwhile), then serves it as any other: every
// read and write goes through c.t.

// tlsConn is a connection's TLS state, embedded in conn.
type tlsConn struct {
	// tls is c.t when the connection speaks TLS, nil for plain TCP (and
	// after a client sent plain HTTP to the TLS port).
	tls *transport.TLS
	// handshaking: the handshake has not been seen to end by the loop.
	handshaking bool
}

// tlsLoop is a loop's TLS state, embedded in loop.
type tlsLoop struct {
	// hsEnded is the handshakes' callback, made once per loop so that a
	// connection costs no closure.
	hsEnded func(*transport.TLS)
	// shaken holds the TLS connections whose handshake ended, posted by
	// the callback.
	shaken mailbox.Box[*transport.TLS]
	// handshakes maps the TLS of each connection still handshaking to it:
	// the loop finds a connection by its *TLS, never by its fd, which may
	// have been closed and reused, or (Hijack) moved to a duplicate.
	handshakes map[*transport.TLS]*conn
	// quietAt is where the next visit of the connection table starts,
	// quietNext when it is due (quietSome).
	quietAt   int
	quietNext int64
}

// quietPeriod is how long the loop takes to visit every connection once
// to let idle TLS connections' record keys rest (transport.TLS.Quiet): a
// connection without a record for one to two periods keeps only its
// traffic keys, not the AES-GCM states (about 1.5 KB), until its next
// record. Atomic for tests, which shorten it.
var quietPeriod atomic.Int64

func init() { quietPeriod.Store(int64(5 * time.Second)) }

// quietSome visits the next share of the loop's connections, at most once
// a wheel tick, so that the whole table is visited every quietPeriod; a
// TLS connection the loop owns is told to rest its keys if it was quiet.
func (l *loop) quietSome(now int64) {
	if l.srv.tlsConf == nil || now < l.quietNext {
		return
	}
	l.quietNext = now + wheelTick
	n := len(l.byFD)
	end := min(l.quietAt+n/int(max(quietPeriod.Load()/wheelTick, 1))+1, n)
	for _, c := range l.byFD[l.quietAt:end] {
		if c != nil && c.tls != nil && !c.handshaking && c.state.Load() == stIdle && !c.hijacked.Load() {
			c.tls.Quiet()
		}
	}
	l.quietAt = end % max(n, 1)
}

// startTLS makes c, just registered, a TLS connection and starts its
// handshake, bounded by ReadHeaderTimeout (the wheel closes c then too).
func (l *loop) startTLS(c *conn) {
	if l.hsEnded == nil {
		l.hsEnded = l.handshakeEnded
		l.handshakes = make(map[*transport.TLS]*conn)
	}
	t := transport.NewServerTLS(&c.plain, l.srv.tlsConf)
	c.tls, c.t, c.layered, c.handshaking = t, t, true, true
	l.handshakes[t] = c
	if err := t.Handshake(time.Now().Add(l.srv.cfg.ReadHeaderTimeout), l.hsEnded); err != nil {
		l.closeConn(c) // cannot happen: the TLS is new
	}
}

// handshakeEnded is the handshake goroutine's callback: it queues t for
// its loop and wakes it, nothing more.
func (l *loop) handshakeEnded(t *transport.TLS) {
	l.shaken.Post(t) // false once the loop has stopped: nothing more is taken
}

// takeHandshakes serves the connections whose handshake ended.
func (l *loop) takeHandshakes(now int64) {
	// Resumable, as readTheRest is: in Auto mode a handler served here may
	// be moved off the loop, and the loop's new goroutine goes on from the
	// next entry.
	l.shaken.Take()
	for t, ok := l.shaken.Next(); ok; t, ok = l.shaken.Next() {
		// The connection may be gone (closed by its deadline) or already
		// on its way (the loop saw the handshake end first).
		if c := l.handshakes[t]; c != nil {
			l.afterHandshake(c, now)
		}
	}
}

// afterHandshake goes on with c once its handshake has ended, and does
// nothing before: a successful one is read and served as if the socket were
// readable and writable (an edge may have passed unseen; the client's first
// request may have come with its last flight); a client that spoke plain
// HTTP gets net/http's 400 in plain text and a close; any other failure
// closes c.
func (l *loop) afterHandshake(c *conn, now int64) {
	done, err := c.tls.HandshakeDone()
	if !done || c.state.Load() != stIdle {
		return
	}
	c.handshaking = false
	delete(l.handshakes, c.tls)
	if c.fresh {
		c.reqStart = now // its first request may follow now
	}
	switch {
	case err == nil:
		if c.tls.NegotiatedProtocol() == alpnH2 {
			newH2Conn(c, now)
		} else {
			l.setDeadline(c, now+int64(l.srv.cfg.ReadHeaderTimeout))
		}
		// The first request (for HTTP/2, the preface) may have come with
		// the client's last handshake flight: no event will announce it.
		l.readTurn(c, false, now)
	case errors.Is(err, transport.ErrNotTLS):
		c.tls.Release()
		c.tls, c.t, c.layered = nil, &c.plain, false
		st := l.seat
		if !l.writeOut(c, st, append(st.out[:0], plainToTLS...)) {
			return
		}
		// The rest of the request is not read: close with a lingering
		// close, once the answer is out.
		c.closing, c.linger = true, true
		if !c.blocked {
			l.closeAfterResponse(c)
		}
	default:
		// As net/http does, but not for a client that closed before
		// saying anything (TCP health checks, port scans).
		if !errors.Is(err, io.EOF) {
			l.srv.cfg.ErrorLog.Printf("gust/server: TLS handshake error from %s: %v", c.remoteString(), err)
		}
		l.closeConn(c)
	}
}

// endTLS is closeConn's part for a TLS connection, before the socket is
// closed: close_notify, best effort (unless a lingering close sent it
// already), and the transport's buffers back to their pools. A hijacked
// connection's TLS is its handler's now.
func (c *conn) endTLS() {
	if c.handshaking {
		c.handshaking = false
		delete(c.l.handshakes, c.tls)
	}
	if c.hijacked.Load() {
		return
	}
	if !c.lingering {
		c.tls.CloseNotify()
	}
	c.tls.Release()
}

// shortReadDrains reports whether the short read just made emptied the
// socket: always on plain TCP, and on TLS when the transport says so.
func (c *conn) shortReadDrains() bool {
	return !c.layered || (c.tls != nil && c.tls.Drained())
}

// closeNotify sends close_notify on a TLS connection about to shut down
// its write side (a lingering close): the client then reads the end of the
// TLS stream, not a truncation.
func (c *conn) closeNotify() {
	if c.tls != nil {
		c.tls.CloseNotify()
	}
}

// connectionState returns the TLS state for the adapter's Request.TLS,
// nil for plain TCP.
func (c *conn) connectionState() *tls.ConnectionState {
	if c.tls == nil {
		return nil
	}
	st := c.tls.ConnectionState()
	return &st
}

// offersH2 reports whether s's TLS connections may choose HTTP/2 by ALPN.
func (s *Server) offersH2() bool { return s.cfg.HTTP2.OverTLS }
