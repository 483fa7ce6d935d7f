package load

import "github.com/gust-http/gust/internal/http1"

// connState is where a connection is in its life.
type connState uint8

const (
	stClosed     connState = iota // no socket; waiting to (re)connect
	stConnecting                  // non-blocking connect in progress
	stActive                      // connected: sending and receiving
	stBackoff                     // a connect failed; retrying after a pause
)

// respPhase is where the response parser is within the current response.
type respPhase uint8

const (
	phHead       respPhase = iota // expecting a status line and headers
	phLength                      // skipping a Content-Length body
	phChunked                     // decoding a chunked body
	phUntilClose                  // body ends when the server closes
)

// conn is one client connection's state machine. It lives for the whole
// run; its socket may be replaced many times.
type conn struct {
	fd            int
	state         connState
	everConnected bool // counted in engine.connectedOnce
	uncounted     int  // in-flight requests sent before measurement began (the oldest ones)

	// Requests in flight, oldest first: sent[(first+i) % len(sent)] is the
	// time the i-th was sent (or intended to be, in the open model).
	sent     []int64
	first    int
	inflight int
	since    int64 // last progress on the oldest in-flight request (for Timeout)

	// Write side: out[woff:woff+wleft] is what is left to write. Without a
	// Source, out is the loop's shared copy of the request; with one, it is
	// wbuf, where the requests taken from batches are copied.
	woff, wleft int
	out         []byte

	// Read side.
	phase      respPhase
	headReq    bool // the oldest request in flight is a HEAD: no response body
	head       http1.ResponseHead
	status     int
	closeAfter bool  // the server said it closes after this response
	remaining  int64 // body bytes left in phLength
	chunk      http1.ChunkedDecoder
	pending    []byte // an incomplete response head carried to the next read

	connectStart int64
	next         int64 // open model: intended time of the next request
	backoff      int64 // current reconnect pause, ns

	at      int64 // the time this connection waits for in the timer heap
	heapIdx int   // position in the timer heap; -1 when not in it

	// With a Source only (the fields last, away from the hot ones above):
	// meta parallels sent with each in-flight request's endpoint and HEAD
	// flag (see metaHead); wbuf holds the requests taken from batches.
	meta []uint32
	wbuf []byte
	idle bool // in the loop's queue of idle connections
}

func newConn(pipeline int) *conn {
	return &conn{fd: -1, sent: make([]int64, pipeline), heapIdx: -1}
}

// pushSent records the send time of a new in-flight request.
func (c *conn) pushSent(t int64) {
	c.sent[(c.first+c.inflight)%len(c.sent)] = t
	c.inflight++
}

// pushSentMeta records a new in-flight request from a Source.
func (c *conn) pushSentMeta(t int64, meta uint32) {
	i := (c.first + c.inflight) % len(c.sent)
	c.sent[i] = t
	c.meta[i] = meta
	if c.inflight == 0 {
		c.headReq = meta&metaHead != 0
	}
	c.inflight++
}

// popSent removes the oldest in-flight request and returns its send time.
func (c *conn) popSent() int64 {
	t := c.sent[c.first]
	c.first++
	if c.first == len(c.sent) {
		c.first = 0
	}
	c.inflight--
	return t
}

// resetIO clears everything tied to the current socket.
func (c *conn) resetIO() {
	c.fd = -1
	c.first, c.inflight, c.uncounted = 0, 0, 0
	c.woff, c.wleft = 0, 0
	c.phase = phHead
	c.closeAfter = false
	c.pending = c.pending[:0]
}
