package transport

import (
	"crypto/tls"
	"errors"
	"sync"
	"sync/atomic"
)

// maxPlaintext is the largest plaintext a TLS record carries: a tls.Conn.Read
// into a buffer this large empties crypto/tls's decrypted record.
const maxPlaintext = 16 << 10

// writeChunk bounds the plaintext one Write encrypts before it tries the
// socket, so a large Write holds at most this much ciphertext.
const writeChunk = 32 << 10

// ErrNotTLS is the handshake error of a server whose client's first byte
// cannot start a TLS record: most often a plain HTTP request sent to a TLS
// port. A server answers it in plain text (net/http writes "400 Bad
// Request: Client sent an HTTP request to an HTTPS server.") on the inner
// Conn and closes.
var ErrNotTLS = errors.New("transport: client sent a non-TLS first record (plain HTTP to a TLS port?)")

// ErrHandshakeNotStarted is returned by Read and Write before Handshake.
var ErrHandshakeNotStarted = errors.New("transport: tls handshake not started")

// ErrReleased is returned by a TLS after Release.
var ErrReleased = errors.New("transport: tls connection released")

// Handshake states of a TLS.
const (
	stateNew int32 = iota
	stateHandshaking
	stateReady
	stateFailed
)

// TLS is a Conn that speaks TLS (crypto/tls from the standard library) over
// an inner non-blocking Conn, for an event loop on either side.
//
// Its life: NewServerTLS or NewClientTLS; Handshake, which runs on a
// goroutine of its own and calls back when it ends; then Read and Write as
// on any Conn, which never block and allocate nothing in steady state;
// CloseNotify to send close_notify; Release before the loop closes the
// socket. A TLS holds record buffers only while they hold bytes.
//
// Apart from Handshake's callback and HandshakeDone, a TLS is used by one
// goroutine at a time, as every Conn.
type TLS struct {
	rc recordConn
	tc *tls.Conn // nil once d has taken over the records
	d  *direct13 // TLS 1.3 records after the handover (tls13direct.go), or nil

	isClient bool
	client   *clientHandover // a client's handover, once it has a ticket (tls13client.go); nil for a server
	state    atomic.Int32

	mu       sync.Mutex // guards released against the handshake goroutine's end
	released bool

	hsErr error      // written before state becomes stateFailed
	done  func(*TLS) // the loop's callback

	plain      *[]byte // decrypted bytes a short Read could not take, nil when none
	pOff, pEnd int
	rerr, werr error // kept: the stream cannot go on after them
}

// NewServerTLS returns the server side of a TLS connection over inner,
// whose socket is connected and non-blocking. config must hold a
// certificate (Certificates or GetCertificate); its NextProtos are offered
// by ALPN and its SessionTicketsDisabled decides resumption (tickets are on
// by default). A client whose first byte cannot start a TLS record fails
// the handshake with ErrNotTLS.
func NewServerTLS(inner Conn, config *tls.Config) *TLS {
	c := &TLS{}
	c.rc.inner = inner
	c.rc.checkFirst = true
	c.rc.secrets = &secretLog{captures: true}
	c.tc = tls.Server(&c.rc, config)
	return c
}

// NewClientTLS returns the client side of a TLS connection over inner,
// whose socket is connected and non-blocking. config must name the server
// (ServerName, for SNI and verification) or set InsecureSkipVerify; a
// ClientSessionCache shared by the connections of a run lets them resume.
//
// A TLS 1.3 connection on an AES-GCM suite takes its records over from
// crypto/tls once it has kept a session ticket (or at once without a
// ClientSessionCache): tls13client.go.
func NewClientTLS(inner Conn, config *tls.Config) *TLS {
	c := &TLS{isClient: true, client: &clientHandover{}}
	c.rc.inner = inner
	if directRecords {
		config = c.watchClient(config)
	}
	c.tc = tls.Client(&c.rc, config)
	return c
}

// Read returns decrypted bytes: (0, ErrWouldBlock) when a whole record has
// not arrived yet, (0, io.EOF) after the peer's close_notify or close, and
// the handshake's error or ErrWouldBlock before the handshake succeeded.
// A Read into a buffer of 16 KiB or more decrypts straight into it; a
// shorter one keeps the rest of the record for the next Read (Buffered
// counts it).
func (c *TLS) Read(p []byte) (int, error) {
	if s := c.state.Load(); s != stateReady {
		return 0, c.notReady(s)
	}
	if c.pEnd > c.pOff {
		return c.readPlain(p), nil
	}
	if c.rerr != nil {
		return 0, c.rerr
	}
	if len(p) == 0 {
		return 0, nil
	}
	if c.d != nil {
		return c.readDirect(p)
	}
	// Read the socket before crypto/tls does, and call it only with a whole
	// record to decrypt: each of its reads that finds its input short costs
	// an allocation (crypto/tls/conn.go:837, &atLeastReader{} escapes), a
	// would-block included.
	for c.rc.buffered() == 0 {
		err := c.rc.fill()
		if err == errWouldBlock {
			return 0, ErrWouldBlock
		}
		if err != nil {
			break // crypto/tls meets it again and says what it means
		}
	}
	dst := p
	if len(p) < maxPlaintext {
		c.plain = plainPool.Get().(*[]byte)
		dst = *c.plain
	}
	n, err := c.tc.Read(dst)
	if c.client != nil && c.client.ready != nil {
		c.client.handOver(c)
	}
	if c.rc.pending() > 0 {
		// crypto/tls answered something while reading (a KeyUpdate, an
		// alert): send it now if the socket takes it, else with the next Write.
		c.rc.flush()
	}
	if err != nil {
		if errors.Is(err, errWouldBlock) {
			err = ErrWouldBlock
		} else {
			c.rerr = err
		}
		if n == 0 {
			c.releasePlain()
			return 0, err
		}
	}
	if c.plain == nil {
		return n, nil
	}
	c.pOff, c.pEnd = 0, n
	return c.readPlain(p), nil
}

// readPlain copies kept plaintext into p, releasing its buffer once empty.
func (c *TLS) readPlain(p []byte) int {
	n := copy(p, (*c.plain)[c.pOff:c.pEnd])
	c.pOff += n
	if c.pOff == c.pEnd {
		c.releasePlain()
	}
	return n
}

func (c *TLS) releasePlain() {
	if c.plain != nil {
		plainPool.Put(c.plain)
	}
	c.plain, c.pOff, c.pEnd = nil, 0, 0
}

// Write encrypts p and writes the records to the socket. It follows Conn's
// contract: with ErrWouldBlock, the first n bytes of p are taken (their
// records are held if the socket did not take them) and Write(nil) flushes.
// It holds at most one 32 KiB chunk of p's records at a time, so a large p
// may come back with n < len(p).
func (c *TLS) Write(p []byte) (int, error) {
	if s := c.state.Load(); s != stateReady {
		return 0, c.notReady(s)
	}
	if c.werr != nil {
		return 0, c.werr
	}
	if c.d != nil {
		return c.writeDirect(p)
	}
	if err := c.flush(); err != nil {
		return 0, err
	}
	taken := 0
	for taken < len(p) {
		end := min(len(p), taken+writeChunk)
		if _, err := c.tc.Write(p[taken:end]); err != nil {
			c.werr = err
			return taken, err
		}
		taken = end
		if err := c.flush(); err != nil {
			return taken, err
		}
	}
	return taken, nil
}

// flush writes held records, keeping the socket's errors but ErrWouldBlock.
func (c *TLS) flush() error {
	err := c.rc.flush()
	if err != nil && !errors.Is(err, ErrWouldBlock) {
		c.werr = err
	}
	return err
}

// Buffered reports the bytes Read can return without the socket: plaintext
// kept from a short Read plus the whole records received and not yet
// decrypted, counted by their ciphertext length (an upper bound: a record
// may turn out to be a session ticket, with no bytes for Read). It is 0
// when Read would return ErrWouldBlock, and after a handshake it counts the
// records that arrived with the handshake's last flight (a client's first
// request): the loop must Read them, no readiness event will announce them.
// With crypto/tls's records, whose Read returns one record at a time, it
// is at least 1 while part of a record is held and the last read(2) filled
// its buffer: the socket may hold the rest, and no new edge would say so.
func (c *TLS) Buffered() int {
	if c.state.Load() != stateReady {
		return 0
	}
	n := c.pEnd - c.pOff + c.rc.buffered()
	if n == 0 && c.d == nil && !c.rc.drained && c.rc.in != nil {
		return 1
	}
	return n
}

// Drained reports whether the last Read, short, left the socket empty:
// true only once the records are gust's (tls13direct.go), whose Read goes
// on reading the socket until a read(2) comes back short, and with nothing
// Buffered. An edge-triggered loop may then wait for the next event as
// after a short read of plain TCP; otherwise it reads until ErrWouldBlock.
func (c *TLS) Drained() bool {
	return c.d != nil && c.rc.drained && c.rerr == nil && !c.rc.eof && c.Buffered() == 0
}

// Pending reports the encrypted bytes held for the socket: Write(nil)
// writes them once it is writable.
func (c *TLS) Pending() int {
	if c.state.Load() != stateReady {
		return 0
	}
	return c.rc.pending()
}

// FD returns the socket under the inner Conn.
func (c *TLS) FD() int { return c.rc.inner.FD() }

// Inner returns the Conn under the TLS, for a server to answer ErrNotTLS
// in plain text.
func (c *TLS) Inner() Conn { return c.rc.inner }

// notReady is what Read and Write return in state s before stateReady.
func (c *TLS) notReady(s int32) error {
	switch s {
	case stateNew:
		return ErrHandshakeNotStarted
	case stateHandshaking:
		return ErrWouldBlock
	}
	if c.hsErr != nil {
		return c.hsErr
	}
	return ErrReleased
}

// CloseNotify sends close_notify best effort: it encrypts the alert and
// tries the socket once. It returns nil when the alert went out, and
// ErrWouldBlock when its record is held (Write(nil) flushes it; a loop that
// closes now just loses it). Read still works; Write fails after it.
// Before a successful handshake it does nothing.
func (c *TLS) CloseNotify() error {
	if c.state.Load() != stateReady {
		return nil
	}
	if c.werr != nil {
		return c.werr
	}
	if c.d != nil {
		return c.closeNotifyDirect()
	}
	if c.client != nil {
		c.client.ready = nil // crypto/tls's close_notify ends the writing: no handover
	}
	c.rc.watch = nil
	if err := c.tc.CloseWrite(); err != nil {
		return err
	}
	c.werr = errClosedWrite
	return c.flush()
}

// Release ends the TLS connection without touching the socket, which the
// loop closes after it: it stops a running handshake (whose callback is not
// called then) and returns the record buffers to their pools. The TLS
// cannot be used after it.
func (c *TLS) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return
	}
	c.released = true
	if c.state.Load() == stateHandshaking {
		// The handshake goroutine owns the record buffers until it ends;
		// closing its dup wakes it, and it releases them.
		if c.rc.hs != nil {
			c.rc.hs.Close()
		}
		return
	}
	c.state.Store(stateFailed)
	c.rc.release()
	c.releasePlain()
}
