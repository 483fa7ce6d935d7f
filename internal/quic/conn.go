package quic

import (
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"strconv"
	"time"
)

// Config configures a Conn. The zero value of each limit picks the
// default its comment gives; TLSConfig is required (a server's with its
// certificates, a client's with ServerName and the roots to trust), and
// its MinVersion is raised to TLS 1.3.
type Config struct {
	// TLSConfig is crypto/tls's configuration, TLS 1.3 only: one whose
	// MinVersion says so is used as it is (a server's should, so that its
	// session tickets resume on its other connections; a server sends one
	// ticket per connection unless SessionTicketsDisabled); any other is
	// copied per connection with MinVersion raised.
	TLSConfig *tls.Config

	// MaxIdleTimeout closes a connection that hears nothing from its peer
	// for this long (the smaller of both sides' values). 0: 30 seconds.
	MaxIdleTimeout time.Duration
	// KeyUpdateEvery, if positive, updates the 1-RTT keys after this many
	// packets in a key phase (for tests of key updates with a peer); the
	// keys are updated anyway before the AEAD's confidentiality limit
	// (RFC 9001 section 6.6).
	KeyUpdateEvery uint64
	// KeepAlive sends a PING once the connection has been quiet for half
	// its idle timeout, so that it stays open between requests far apart
	// (a client's choice: the peer's ACK restarts both idle timers).
	KeepAlive bool
	// MaxData is the connection's receive window. 0: 4 MiB.
	MaxData uint64
	// MaxStreamData is each stream's receive window. 0: 1 MiB.
	MaxStreamData uint64
	// MaxStreamsBidi and MaxStreamsUni are how many streams of each kind
	// the peer may have open at once. 0: 100.
	MaxStreamsBidi, MaxStreamsUni uint64
	// MaxSendBuffer bounds the bytes a stream holds written and not yet
	// acknowledged; Write takes less past it. 0: 1 MiB.
	MaxSendBuffer int
	// MaxDatagramSize is the largest datagram sent once the peer allows
	// it (max_udp_payload_size). 0: 1200, the size every path carries.
	MaxDatagramSize int
	// ConnIDLen is the length of this endpoint's connection IDs, 4 to 20.
	// 0: 8.
	ConnIDLen int
	// ActiveConnIDLimit is how many connection IDs of the peer this end
	// keeps: the one in use and spares for a move to a new address. 0: 2,
	// the least allowed (each more costs every connection its bytes).
	ActiveConnIDLimit uint64
	// StatelessResetKey, on a server, derives the reset tokens of its
	// connection IDs; nil draws random ones.
	StatelessResetKey *StatelessResetKey
	// Rand is the source of connection IDs and reset tokens. nil:
	// crypto/rand.
	Rand io.Reader
	// ECN says the caller sets the codepoint DatagramECN gives on each
	// datagram it sends and hands ReceiveECN the codepoint of each one
	// that arrives: the connection then marks its packets ECT(0), counts
	// the peer's marks in its ACKs, validates the path (RFC 9000 section
	// 13.4) and slows down on CE as on a loss.
	ECN bool
}

// The defaults of Config's zero values.
const (
	defaultIdleTimeout   = 30 * time.Second
	defaultMaxData       = 4 << 20
	defaultMaxStreamData = 1 << 20
	defaultMaxStreams    = 100
	defaultSendBuffer    = 1 << 20
	defaultConnIDLen     = 8
	defaultActiveCIDs    = 2
	ackDelayExponent     = 3
	maxAckDelay          = 25 * time.Millisecond
	maxCryptoBuffer      = 64 << 10
)

// WithDefaults returns c with its zero values given their defaults. Its
// connections share a Config so prepared (each connection of another
// keeps a copy): a server or a client making many connections prepares
// its Config once, and changes it no more once a connection uses it.
func (c Config) WithDefaults() Config { return c.withDefaults() }

// ready returns c if it holds its defaults already, so that connections
// share it, or else a copy with them.
func (c *Config) ready() *Config {
	if c.MaxIdleTimeout != 0 && c.MaxData != 0 && c.MaxStreamData != 0 && c.MaxStreamsBidi != 0 &&
		c.MaxStreamsUni != 0 && c.MaxSendBuffer != 0 && c.MaxDatagramSize >= minUDPPayloadSize &&
		c.ConnIDLen >= 4 && c.ConnIDLen <= MaxConnIDLen && c.ActiveConnIDLimit >= minActiveConnIDLimit && c.Rand != nil {
		return c
	}
	d := c.withDefaults()
	return &d
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.MaxIdleTimeout == 0 {
		d.MaxIdleTimeout = defaultIdleTimeout
	}
	if d.MaxData == 0 {
		d.MaxData = defaultMaxData
	}
	if d.MaxStreamData == 0 {
		d.MaxStreamData = defaultMaxStreamData
	}
	if d.MaxStreamsBidi == 0 {
		d.MaxStreamsBidi = defaultMaxStreams
	}
	if d.MaxStreamsUni == 0 {
		d.MaxStreamsUni = defaultMaxStreams
	}
	if d.MaxSendBuffer == 0 {
		d.MaxSendBuffer = defaultSendBuffer
	}
	if d.MaxDatagramSize < minUDPPayloadSize {
		d.MaxDatagramSize = minUDPPayloadSize
	}
	if d.ConnIDLen == 0 {
		d.ConnIDLen = defaultConnIDLen
	}
	d.ConnIDLen = min(max(d.ConnIDLen, 4), MaxConnIDLen)
	if d.ActiveConnIDLimit < minActiveConnIDLimit {
		d.ActiveConnIDLimit = defaultActiveCIDs
	}
	if d.Rand == nil {
		d.Rand = rand.Reader
	}
	return d
}

// spaceID names a packet number space (RFC 9000 section 12.3).
type spaceID uint8

const (
	spaceInitial spaceID = iota
	spaceHandshake
	spaceApp
	numSpaces
)

// level returns the TLS encryption level of the space.
func (s spaceID) level() tls.QUICEncryptionLevel {
	switch s {
	case spaceInitial:
		return tls.QUICEncryptionLevelInitial
	case spaceHandshake:
		return tls.QUICEncryptionLevelHandshake
	}
	return tls.QUICEncryptionLevelApplication
}

// pnSpace is one packet number space's state: keys, packet numbers sent
// and received, the ACK owed, the crypto stream both ways.
type pnSpace struct {
	read, write *Keys
	dropped     bool
	ackNew      bool // packets received since the last ACK sent

	nextPN          uint64
	largestAcked    int64 // by the peer; -1 before any
	largestRecv     int64 // -1 before any
	largestRecvTime time.Time
	recv            RangeSet
	ackEliciting    int       // ack-eliciting packets received since the last ACK sent
	ackDeadline     time.Time // when the ACK is owed; zero: none

	cryptoSend sendBuf
	cryptoRecv recvBuf

	ecnRecv  ECNCounts // the marks of the packets received, for this end's ACKs
	ecnAcked ECNCounts // the peer's counts in its last ACK that validated
}

// connEnd is what a connection keeps once it closes or drains, made
// then, so that an open connection carries none of it.
type connEnd struct {
	at    time.Time // the end of closing or draining
	frame []byte    // the CONNECTION_CLOSE frame, built once
}

// ending returns c's end state, made on first use.
func (c *Conn) ending() *connEnd {
	if c.end == nil {
		c.end = &connEnd{}
	}
	return c.end
}

// discardedSpace is what a connection's long header spaces become once
// both are dropped: read by every such connection, written by none (a
// dropped space is never written: its keys are gone, so nothing is
// received or sent in it).
var discardedSpace = pnSpace{dropped: true, largestAcked: -1, largestRecv: -1}

// connState is where a connection is in its life.
type connState uint8

const (
	stateHandshake connState = iota
	stateActive
	stateClosing  // this end closed: CONNECTION_CLOSE answers what arrives
	stateDraining // the peer closed: nothing is sent
	stateClosed
)

// Conn is one QUIC version 1 connection, either role, sans-I/O: the
// caller hands it each datagram that arrives (Receive), asks it for
// datagrams to send (AppendDatagram) until it has none, and calls
// OnTimeout at NextTimeout. What happens to streams and to the connection
// comes out of NextEvent. A Conn serves one goroutine at a time and reads
// no clock: every time is an argument.
type Conn struct {
	cfg      *Config // shared when the caller's holds its defaults (Config.WithDefaults)
	tls      *tls.QUICConn
	tlsState *tls.ConnectionState // a server's, once its TLS connection is released (releaseTLS)
	opened   uint64               // the peer's packets opened (PacketsOpened)
	// spaces are the packet number spaces: app and, until both are
	// dropped, long's two; then those point at discardedSpace, and a
	// quiet connection keeps one space, not three.
	spaces [numSpaces]*pnSpace
	app    pnSpace
	long   *[2]pnSpace
	// longMarks counts the packets marked ECN in the long header spaces,
	// kept when they go (Stats).
	longMarks uint64

	// The small fields together, so that the struct holds no padding
	// between them.
	isClient           bool
	state              connState
	handshakeComplete  bool // TLS finished
	handshakeConfirmed bool // RFC 9001 section 4.1.2
	handshakeDoneOwed  bool // server: HANDSHAKE_DONE to send
	receivedAny        bool // a packet was processed
	retried            bool // client: a Retry was accepted
	addrValidated      bool
	closeSpace         spaceID
	closeOwed          bool // send the CONNECTION_CLOSE again
	pathResponseDue    bool
	pathResponse       [8]byte
	probeOwed          [numSpaces]uint8 // ack-eliciting packets a PTO asks for (at most 2)
	maxDatagram        uint16           // the largest datagram sent: at most 65,527

	token     []byte
	bytesRecv uint64 // before address validation
	bytesSent uint64

	keys  keyUpdate
	cids  connIDs
	peer  peerLimits
	flow  connFlow
	strms streamSet
	loss  lossTracker
	recs  packetRecs
	ecn   ecnPath

	peerParams *TransportParameters // a client's: all its peer's transport parameters

	idleTimeout time.Duration
	idleAt      time.Time
	keepAliveAt time.Time // with Config.KeepAlive: when a PING is due; zero once sent
	releaseAt   time.Time // when a quiet connection lets its working state go (releaseIdle)
	end         *connEnd  // once closing or draining
	err         error

	paceAt time.Time // when the pacer lets the next datagram go

	events    []Event
	eventHead int
}

// ErrVersionNegotiation is the error of a client connection whose server
// does not speak QUIC version 1.
var ErrVersionNegotiation = errors.New("quic: the server does not support QUIC version 1")

// ErrStatelessReset is the error of a connection the peer reset with a
// Stateless Reset.
var ErrStatelessReset = errors.New("quic: stateless reset by the peer")

// ErrIdleTimeout is the error of a connection closed by its idle timeout.
var ErrIdleTimeout = errors.New("quic: idle timeout")

// CloseError is how a connection ended by a CONNECTION_CLOSE: the peer's
// (Remote) or this end's, a transport error code or an application one.
type CloseError struct {
	Remote      bool
	Application bool
	Code        uint64
	Reason      string
	// Cause is this end's reason when another package's error made it
	// close (TransportError.Cause); nil otherwise.
	Cause error
}

// Unwrap returns Cause.
func (e *CloseError) Unwrap() error { return e.Cause }

// Error describes the close.
func (e *CloseError) Error() string {
	who := "local"
	if e.Remote {
		who = "peer"
	}
	if e.Application {
		return "quic: closed by " + who + ": application error " + itoa(e.Code) + ": " + e.Reason
	}
	return "quic: closed by " + who + ": " + TransportErrorCode(e.Code).String() + ": " + e.Reason
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// newConn sets up what both roles share.
func newConn(cfg *Config, isClient bool) *Conn {
	c := &Conn{cfg: cfg.ready(), isClient: isClient, maxDatagram: minUDPPayloadSize}
	c.long = new([2]pnSpace)
	c.spaces = [numSpaces]*pnSpace{&c.long[0], &c.long[1], &c.app}
	for _, sp := range c.spaces {
		sp.largestAcked, sp.largestRecv = -1, -1
	}
	c.idleTimeout = c.cfg.MaxIdleTimeout
	c.flow.init(c.cfg.MaxData)
	c.strms.init(c)
	c.loss.init(!isClient)
	c.ecn.init(c.cfg.ECN)
	return c
}

// randomID returns n random bytes.
func (c *Conn) randomID(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(c.cfg.Rand, b); err != nil {
		return nil, err
	}
	return b, nil
}

// IsClient reports whether this end is the client.
func (c *Conn) IsClient() bool { return c.isClient }

// HandshakeComplete reports whether the TLS handshake is done: streams
// may carry data.
func (c *Conn) HandshakeComplete() bool { return c.handshakeComplete }

// ConnectionState returns the TLS state: the ALPN protocol, the peer's
// certificates.
func (c *Conn) ConnectionState() tls.ConnectionState {
	if c.tls == nil {
		return *c.tlsState
	}
	return c.tls.ConnectionState()
}

// Err returns why the connection ended, or nil while it is open.
func (c *Conn) Err() error { return c.err }

// PacketsOpened returns how many of the peer's packets were opened
// (authenticated and not duplicates): a listener moves a connection to a
// new address only when a datagram from there opened one.
func (c *Conn) PacketsOpened() uint64 { return c.opened }

// ReceivedAny reports whether a packet of the peer's has been opened: a
// server's listener drops a connection whose first datagram was not one
// (garbage in the shape of an Initial) rather than keep its state.
func (c *Conn) ReceivedAny() bool { return c.receivedAny }

// Closed reports whether the connection is over: nothing more to send or
// receive, its state may be dropped.
func (c *Conn) Closed() bool { return c.state == stateClosed }

// EventKind says what an Event reports.
type EventKind uint8

// The events a Conn reports.
const (
	EventNone           EventKind = iota
	EventHandshakeDone            // the handshake completed
	EventStreamOpened             // the peer opened StreamID
	EventStreamReadable           // StreamID has data, a FIN or a reset to read
	EventStreamWritable           // StreamID takes writes again, or the peer stopped it
	EventConnClosed               // the connection ended with Err
)

// Event is something that happened on a connection.
type Event struct {
	Kind     EventKind
	StreamID uint64
	Err      error
}

// NextEvent returns the next event, EventNone when there is none.
func (c *Conn) NextEvent() Event {
	if c.eventHead == len(c.events) {
		c.events, c.eventHead = c.events[:0], 0
		return Event{}
	}
	e := c.events[c.eventHead]
	c.eventHead++
	return e
}

func (c *Conn) event(kind EventKind, id uint64) {
	c.events = append(c.events, Event{Kind: kind, StreamID: id})
}

// peerMaxAckDelay returns the peer's max_ack_delay.
func (c *Conn) peerMaxAckDelay() time.Duration {
	return time.Duration(c.peer.maxAckDelay) * time.Millisecond
}

// NextTimeout returns when OnTimeout is due next; the zero time when
// nothing is pending.
func (c *Conn) NextTimeout() time.Time {
	switch c.state {
	case stateClosed:
		return time.Time{}
	case stateClosing, stateDraining:
		return c.end.at
	}
	t := c.idleAt
	for i := range c.spaces {
		t = earliest(t, c.spaces[i].ackDeadline)
	}
	t = earliest(t, c.paceAt)
	t = earliest(t, c.releaseAt)
	if c.cfg.KeepAlive && c.handshakeComplete {
		t = earliest(t, c.keepAliveAt)
	}
	return earliest(t, c.loss.timeout())
}

// earliest returns the earlier of two times, a zero time meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// OnTimeout runs what is due at now: the idle timeout, the end of closing,
// loss detection and probes. ACKs that are due go out with the next
// AppendDatagram.
func (c *Conn) OnTimeout(now time.Time) {
	switch c.state {
	case stateClosed:
		return
	case stateClosing, stateDraining:
		if !now.Before(c.end.at) {
			c.finish(c.err)
		}
		return
	}
	if !c.idleAt.IsZero() && !now.Before(c.idleAt) {
		c.finish(ErrIdleTimeout)
		return
	}
	if t := c.loss.timeout(); !t.IsZero() && !now.Before(t) {
		c.loss.onTimeout(c, now)
	}
	if !c.releaseAt.IsZero() && !now.Before(c.releaseAt) {
		c.releaseAt = time.Time{}
		c.releaseIdle()
	}
	if c.cfg.KeepAlive && c.handshakeComplete && !c.keepAliveAt.IsZero() && !now.Before(c.keepAliveAt) {
		c.keepAliveAt = time.Time{}
		c.probeOwed[spaceApp] = max(c.probeOwed[spaceApp], 1) // an ack-eliciting packet: a PING if nothing else
	}
}

// touchIdle restarts the idle timer at now (RFC 9000 section 10.1).
func (c *Conn) touchIdle(now time.Time) {
	c.releaseAt = c.releaseAfter(now)
	d := c.idleTimeout
	if d == 0 {
		c.idleAt = time.Time{}
		return
	}
	c.idleAt = now.Add(max(d, 3*c.loss.pto(c.peerMaxAckDelay())))
	c.keepAliveAt = now.Add(c.idleAt.Sub(now) / 2)
}
