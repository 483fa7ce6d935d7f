//go:build linux

package server

import (
	"context"
	"net"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/transport"
)

// Connection states. A connection is owned by its loop while stIdle, and
// by one worker goroutine while stBusy or stBusyEvent; only the owner reads
// or writes its socket and buffers.
const (
	stIdle      int32 = iota
	stBusy            // a worker is serving it
	stBusyEvent       // a worker is serving it and the socket reported readiness meanwhile
	stClosed
)

// conn is one client connection. Idle, it holds no buffers: in and out are
// borrowed from a pool while a request or response is in progress.
//
// Its fields by owner: set once when it is made; atomic, for the loop and
// a worker alike; the owner's, meaning the loop while state is stIdle and
// the one worker serving it while stBusy or stBusyEvent (a worker's
// hand-over through state orders them); the loop's alone; and the
// adapter's, made on first use.
type conn struct {
	// Set once, by newConn.
	fd int
	l  *loop
	// plain is the socket's transport, held here so that a connection
	// is one allocation.
	plain transport.Plain

	// Atomic. (hijacked is further down, where it packs.)
	state    atomic.Int32
	waiting  atomic.Bool  // a worker waits on ready for the socket to take more of a response
	deadline atomic.Int64 // loop clock ns; when the current timeout expires

	// The owner's.
	// t carries every byte the connection reads and writes: &plain, or
	// TLS layered on it (tlsConn).
	t       transport.Conn
	tlsConn        // the TLS transport and its handshake (tls_linux.go)
	in      []byte // received bytes not yet served
	out     []byte // response bytes still to be written
	// file is a response body being sent from a file (filesend_linux.go),
	// nil when none is in flight; while set on the loop, c.blocked is too.
	file     *fileBody
	rd       reading // HTTP/1.1: the request being read: chunked progress, 100 Continue
	reqStart int64   // when the first byte of the request being read arrived; 0 between requests
	// headScan: bytes of c.in known to hold no complete head.
	// parsed is a request the loop parsed and handed over with the
	// connection, spanning c.in[:parsedLen] (its head only if parsedBody:
	// the body is still arriving), for the worker to serve first.
	// (int32s side by side: what the loop holds in c.in is far below 2 GiB.)
	headScan, parsedLen int32
	parsed              *Ctx
	ready               chan struct{} // a waiting worker's wake-up (waiting)

	// The owner's flags, together so that they pack.
	// layered: t is not plain. A short read from plain means the socket
	// is drained; from a layered transport it does not (it may have read
	// the socket full and handed out less), so the loop reads until
	// ErrWouldBlock.
	layered bool
	// keepOut: out stays the connection's once written, rather than going
	// back to the pool (HTTP/2 with bodies still to send: see reserveOut).
	keepOut bool
	// blocked: the transport would not take everything; out (empty if the
	// transport took all and holds bytes of its own) waits for the socket
	// to be writable.
	blocked bool
	closing bool // close once out is written
	// linger: when it closes, the client may still be sending (an unread
	// body, bytes after the last request served): close with a lingering
	// close.
	linger bool
	// moreToRead says the socket may hold bytes the loop did not read
	// before handing the connection to a worker (a full read buffer or a
	// hang-up): with edge-triggered polling no new event will announce
	// them, so the worker reads them itself.
	moreToRead bool
	parsedBody bool // parsed's body is still arriving
	// fresh: no byte of a request has arrived since the connection was
	// accepted; reqStart then holds when it was accepted, or when its TLS
	// handshake ended. Shutdown leaves it freshGrace from then to send its
	// first request.
	fresh bool

	// The loop's.
	we wheelEntry
	// proto is what the connection speaks (proto_linux.go): HTTP/1.1
	// until a preface, ALPN or an upgrade switches it.
	proto protocol
	// lingering: a lingering close is under way (linger_linux.go), and
	// lingerLeft bytes more may be read and discarded; lingerQueued: it is
	// in its loop's queue of lingering connections to read.
	// (An int32 beside the flags: the conn stays in its 256-byte class.)
	lingerLeft              int32
	lingering, lingerQueued bool
	// later: the connection is in its loop's list of sockets to read on
	// (its turn ended before the socket was drained); hangup, if a hang-up
	// was seen then.
	later, laterHangup bool
	// drainNow: Shutdown chose the connection to close now (drain_linux.go),
	// so that its next HTTP/1.1 response says Connection: close.
	drainNow bool

	// hijacked (atomic): a handler took the socket over; the server only
	// closes its own descriptor.
	hijacked atomic.Bool

	// adapt is what the net/http adapter keeps per connection, made when
	// it first needs it (a native handler never does): atomic, for the
	// loop reads it while a worker serves.
	adapt atomic.Pointer[connAdapter]
}

// connAdapter is the net/http adapter's state of a connection.
type connAdapter struct {
	// remote is the client's address, formatted when the adapter first
	// asks; the owner's.
	remote string
	// cancel, guarded by mu, ends the request's context when the client
	// goes away.
	mu     sync.Mutex
	cancel context.CancelFunc
}

func newConn(l *loop, fd int) *conn {
	c := &conn{fd: fd, l: l}
	c.plain.Reset(fd)
	c.t = &c.plain
	if l.srv.layer != nil {
		c.t = l.srv.layer(c.t)
		c.layered = true
	}
	c.proto = h1proto{}
	c.we.owner = c
	return c
}

// keep stores data (a view of the loop buffer or of c.in itself) as the
// connection's unserved input.
func (c *conn) keep(data []byte) {
	if len(data) == 0 {
		c.dropIn()
		return
	}
	if c.in == nil {
		c.in = getBuf()
	}
	c.in = append(c.in[:0], data...) // copy handles data overlapping c.in
}

func (c *conn) dropIn() {
	if c.in != nil {
		putBuf(c.in)
		c.in = nil
	}
}

func (c *conn) release() {
	c.proto.release(c)
	c.dropIn()
	if c.file != nil {
		c.file.release()
		c.file = nil
	}
	if c.out != nil {
		putBuf(c.out)
		c.out = nil
	}
	c.blocked, c.keepOut = false, false
}

func (c *conn) remoteAddr() net.Addr {
	sa, err := unix.Getpeername(c.fd)
	if err != nil {
		return nil
	}
	return sockaddrToTCP(sa)
}

// due is the wheel's callback: close the connection if its deadline has
// passed and the loop owns it; otherwise say when to look again.
func (c *conn) due(now int64) int64 {
	l := c.l
	switch c.state.Load() {
	case stClosed:
		return 0
	case stIdle:
		if !c.lingering {
			return c.proto.due(c, now)
		}
	case stBusy, stBusyEvent:
		// The worker moves the deadline when it gives the connection back,
		// never earlier than this.
		return now + l.minTimer
	}
	return c.dueDeadline(now)
}

// dueDeadline closes c if its deadline has passed; otherwise it says when
// to look again.
func (c *conn) dueDeadline(now int64) int64 {
	if d := c.deadline.Load(); d > now {
		return d
	}
	c.l.closeConn(c)
	return 0
}

// onClientGone arranges for cancel to be called if the client hangs up
// while its request is being served; nil removes it.
func (c *conn) onClientGone(cancel context.CancelFunc) {
	a := c.adapt.Load()
	if a == nil {
		if cancel == nil {
			return
		}
		a = c.adapter()
	}
	a.mu.Lock()
	a.cancel = cancel
	a.mu.Unlock()
}

// cancelRequest ends the context of the request being served, if the
// adapter gave it one (onClientGone); the loop calls it when the client
// hangs up or the server stops.
func (c *conn) cancelRequest() {
	if a := c.adapt.Load(); a != nil {
		a.mu.Lock()
		if a.cancel != nil {
			a.cancel()
		}
		a.mu.Unlock()
	}
}

// adapter returns c's adapter state, made on first use; only c's owner
// calls it.
func (c *conn) adapter() *connAdapter {
	if a := c.adapt.Load(); a != nil {
		return a
	}
	a := new(connAdapter)
	c.adapt.Store(a)
	return a
}

// remoteString returns the client's address as host:port, formatted once
// per connection, on a worker (the adapter's RemoteAddr).
func (c *conn) remoteString() string {
	a := c.adapter()
	if a.remote == "" {
		if ra := c.remoteAddr(); ra != nil {
			a.remote = ra.String()
		}
	}
	return a.remote
}
