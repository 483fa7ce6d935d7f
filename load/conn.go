package load

import "github.com/gust-http/gust/internal/transport"

// connState is where a connection is in its life.
type connState uint8

const (
	stClosed      connState = iota // no socket; waiting to (re)connect
	stConnecting                   // non-blocking connect in progress
	stActive                       // ready: sending and receiving
	stBackoff                      // a connect failed; retrying after a pause
	stHandshaking                  // connected; TLS handshake in progress (tls_loop.go)
)

// conn is one client connection's state machine. It lives for the whole
// run; its socket may be replaced many times.
type conn struct {
	fd            int
	tr            transport.Conn // every read and write of the socket; nil without one
	state         connState
	everConnected bool  // counted in engine.connectedOnce
	answered      bool  // a response completed on the current socket: it was reused
	unanswered    uint8 // sockets in a row closed (1001) before answering, their messages retried
	uncounted     int   // in-flight requests sent before measurement began (the oldest ones)
	since         int64 // last progress on the oldest in-flight request (for Timeout)

	// ses is the protocol's state of the connection: its requests in
	// flight and the parser of its responses.
	ses session
	// other is the session of the protocol c spoke before ALPN chose the
	// other one (see useProtocol); nil until then.
	other session

	// Write side: wbuf holds the requests of one refill, encoded by the
	// session; wbuf[woff:woff+wleft] is what is left to write.
	woff, wleft int
	wbuf        []byte

	connectStart int64
	next         int64 // constant rate: intended time of the next request
	backoff      int64 // current reconnect pause, ns

	at      int64 // the time this connection waits for in the timer heap
	heapIdx int   // position in the timer heap; -1 when not in it

	// retries are requests a GOAWAY sent back unprocessed (HTTP/2), or
	// that a reused connection lost unanswered (HTTP/1.1, retry.go), sent
	// again before any new one; they outlive the socket.
	retries []exchange

	plain plainTransport // the transport tr points to, reused for every socket
	h3    *h3session     // ses, for an HTTP/3 run: its sockets are UDP (h3loop.go)
	idle  bool           // in the loop's queue of idle connections (with a Source)
	user  *flowUser      // the virtual user whose step c carries now (Config.Flow); nil otherwise
	// watched: in the loop's list for the timeout scan (loop.watch).
	watched bool
	paced   bool // waiting for the connect slot the loop's pace gave it (ramp.go)

	// With TLS: the transport layered on plain for the current socket (tr
	// points to it), when its handshake began, and the callback that
	// queues its end for the loop (made once).
	tls            *transport.TLS
	handshakeStart int64
	onHandshake    func(*transport.TLS)
}

func newConn(ses session) *conn {
	return &conn{fd: -1, ses: ses, heapIdx: -1, wbuf: make([]byte, 0, 1024)}
}

// attach puts c on the socket fd, read and written through a plain
// transport; a TLS transport is layered on it once connected
// (loop.startHandshake).
func (c *conn) attach(fd int) {
	c.fd = fd
	c.plain.Reset(fd)
	c.tr = &c.plain
}

// pending reports whether c's TLS transport holds records the socket has
// not taken yet (Write(nil) flushes them).
// An HTTP/3 connection's engine may have datagrams to send.
func (c *conn) pending() bool {
	return c.tls != nil && c.tls.Pending() > 0 || c.h3 != nil && c.h3.link.owed
}

// inflight reports how many of c's requests wait for their response.
func (c *conn) inflight() int { return c.ses.inflight() }

// resetIO clears everything tied to the current socket.
func (c *conn) resetIO() {
	c.fd = -1
	c.tr = nil
	c.tls = nil
	c.uncounted = 0
	c.answered = false
	c.woff, c.wleft = 0, 0
	c.ses.reset()
}
