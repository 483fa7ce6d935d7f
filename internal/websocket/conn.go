package websocket

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// DefaultMaxMessage is the message size limit when Config.MaxMessage is 0.
const DefaultMaxMessage = 16 << 20

// Config sets up one endpoint of a connection. The zero value is a server
// without extensions accepting messages up to DefaultMaxMessage.
type Config struct {
	// Client says this side is the client: it masks every frame it sends
	// and refuses masked frames. A server refuses unmasked ones. Both with
	// close code 1002.
	Client bool
	// MaxMessage bounds a message's payload after inflating; a message
	// over it ends the connection with 1009, before it is buffered (a
	// frame header announcing more is enough). A compressed message may
	// be a little larger on the wire than it inflates to (data that does
	// not compress is sent in stored blocks, 5 bytes of framing per
	// block): its compressed size is bounded by CompressedBound(MaxMessage).
	// Zero means DefaultMaxMessage.
	MaxMessage int
	// Deflate holds the permessage-deflate parameters negotiated in the
	// handshake; nil means no extension, and a frame with RSV1 set then ends
	// the connection with 1002.
	Deflate *DeflateParams
}

// EventKind says what a frame or message completed.
type EventKind uint8

// The events Feed reports.
const (
	// EventMessage: a whole text or binary message (Op); Payload holds it,
	// inflated and, for text, valid UTF-8.
	EventMessage EventKind = iota + 1
	// EventPing: a ping arrived with Payload; Feed already appended the pong.
	EventPing
	// EventPong: a pong arrived with Payload.
	EventPong
	// EventClose: the peer's close arrived with Code (CloseNoStatus when it
	// had none) and Payload, the reason. If this side had not sent a close,
	// Feed appended the reply; the caller writes it and closes the
	// connection (a server at once, RFC 6455 section 7.1.1).
	EventClose
)

var eventNames = [...]string{"", "message", "ping", "pong", "close"}

// String returns a short lowercase name of the kind.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
}

// Event is one thing Feed completed. Payload aliases either the bytes given
// to Feed or a buffer of the Conn; it is valid until the next call to Feed,
// Recycle or Release.
type Event struct {
	Kind    EventKind
	Op      Opcode
	Payload []byte
	Code    int
}

// Conn is one endpoint of a WebSocket connection, sans I/O. The zero value
// becomes usable with Init, so a server embeds it without another
// allocation. Idle (no message half received, Recycle called or the next
// Feed begun) it holds no buffer, except with context takeover (see
// DeflateParams): then its own compressor and the peer's history window.
// A Conn is not safe for concurrent use and must not be copied once used.
type Conn struct {
	// Fields are ordered so that they pack: an idle server connection
	// is this struct inside its WSConn, nothing else.
	client bool // set by Init

	// The receiving side.
	msgOp         Opcode // first opcode of the fragmented message in progress, 0 when none
	msgDeflate    bool   // that message is compressed
	closeReceived bool
	closeSent     bool
	pooled        bool    // events came from the pool, not the owner
	text          UTF8    // validates the uncompressed text message in progress
	maxMessage    int32   // Config.MaxMessage (set by Init), at most 2 GiB - 1
	msgStart      int     // where the message in progress starts in buf
	buf           *[]byte // messages assembled during this Feed; pooled
	err           *CloseError
	// events holds what the last Feed completed: a slice lent by the
	// owner (Lend) or, without one, taken from a pool at the first event
	// (pooled); nil between Feeds, so an idle Conn keeps none.
	events *[]Event

	// z is permessage-deflate's state, nil without the extension: a
	// connection that did not negotiate it (most of a million idle ones)
	// keeps a pointer rather than its 48 bytes.
	z *deflation
}

// deflation is what a Conn keeps for permessage-deflate (RFC 7692).
type deflation struct {
	sendNoCtx bool        // this side compresses each message afresh
	recvNoCtx bool        // the peer does
	sendBits  uint8       // window this side compresses within
	recvBits  uint8       // window the peer compresses within
	zbuf      *[]byte     // the compressed message in progress; pooled
	hist      []byte      // the peer's window, kept with its context takeover
	comp      *compressor // this side's own, with its context takeover
}

// Init readies c for a new connection with cfg, dropping anything it held.
func (c *Conn) Init(cfg Config) {
	c.Release()
	limit := cfg.MaxMessage
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	*c = Conn{client: cfg.Client, maxMessage: int32(min(limit, math.MaxInt32))}
	if p := cfg.Deflate; p != nil {
		z := &deflation{}
		sb, cb := windowOrMax(p.ServerMaxWindowBits), windowOrMax(p.ClientMaxWindowBits)
		if c.client {
			z.sendNoCtx, z.sendBits = p.ClientNoContextTakeover, cb
			z.recvNoCtx, z.recvBits = p.ServerNoContextTakeover, sb
		} else {
			z.sendNoCtx, z.sendBits = p.ServerNoContextTakeover, sb
			z.recvNoCtx, z.recvBits = p.ClientNoContextTakeover, cb
		}
		c.z = z
	}
}

func windowOrMax(bits int) uint8 {
	if bits < 8 || bits > 15 {
		return 15
	}
	return uint8(bits)
}

// CloseSent reports whether this side sent its close frame (AppendClose, a
// reply Feed appended, or the close of a protocol error).
func (c *Conn) CloseSent() bool { return c.closeSent }

// InMessage reports whether a fragmented message is half received.
func (c *Conn) InMessage() bool { return c.msgOp != 0 }

// CloseReceived reports whether the peer's close frame arrived.
func (c *Conn) CloseReceived() bool { return c.closeReceived }

// Err returns the protocol error that ended the connection, or nil.
func (c *Conn) Err() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

// Events returns what the last Feed completed, in order. It is valid until
// the next Feed, Recycle or Release.
func (c *Conn) Events() []Event {
	if c.events == nil {
		return nil
	}
	return *c.events
}

// Lend gives the next Feed events to report its events in, emptied first,
// until Recycle, Release or the Feed after it: an owner of many
// connections lends each one the same slice (a server's loop its own), so
// that no Conn keeps one while it waits. Without a loan Feed takes one
// from a pool.
func (c *Conn) Lend(events *[]Event) {
	if c.pooled {
		c.dropEvents()
	}
	*events = (*events)[:0]
	c.events = events
}

// dropEvents forgets the events slice, returning a pooled one.
func (c *Conn) dropEvents() {
	if c.events == nil {
		return
	}
	clear(*c.events) // the payloads they view are no longer the caller's
	*c.events = (*c.events)[:0]
	if c.pooled {
		putEvents(c.events)
	}
	c.events, c.pooled = nil, false
}

// Feed consumes the whole frames at the start of data and returns out with
// anything to send appended, and n, the bytes consumed. A frame cut off at
// the end stays unconsumed: the caller keeps data[n:] and feeds it again
// with more bytes after it. Payloads are unmasked in place in data, which
// the events' payloads may alias.
//
// Pings are answered with pongs and the peer's close with the close reply,
// appended to out. After the peer's close, Feed consumes and ignores
// everything. On a protocol error Feed appends a close frame with its code
// to out and returns a *CloseError (Code, Reason); the caller writes out
// and closes the connection, and every later Feed returns the same error.
// Events completed before the error are still reported.
func (c *Conn) Feed(out, data []byte) ([]byte, int, error) {
	if c.pooled {
		c.dropEvents()
	} else if c.events != nil { // lent: keep it, emptied
		clear(*c.events)
		*c.events = (*c.events)[:0]
	}
	c.recycleBufs()
	if c.err != nil {
		return out, 0, c.err
	}
	n := 0
	for n < len(data) {
		if c.closeReceived {
			return out, len(data), nil // RFC 6455 section 5.5.1: nothing follows a close
		}
		h, hn, err := ParseFrameHeader(data[n:])
		if err != nil {
			return c.fail(out, err.(*CloseError)), n, c.err
		}
		if hn == 0 {
			break
		}
		if e := c.check(&h); e != nil {
			return c.fail(out, e), n, c.err
		}
		rest := uint64(len(data) - n - hn)
		if h.Length > rest {
			break
		}
		end := n + hn + int(h.Length)
		payload := data[n+hn : end]
		if h.Masked {
			Mask(payload, h.Mask, 0)
		}
		n = end
		var e *CloseError
		if out, e = c.frame(out, &h, payload); e != nil {
			return c.fail(out, e), n, c.err
		}
	}
	return out, n, nil
}

// check applies the rules that need the connection's state to a header, as
// soon as it is in: masking, RSV bits, the order of data frames and the
// message size limit.
func (c *Conn) check(h *FrameHeader) *CloseError {
	if h.Masked == c.client {
		if c.client {
			return errMaskedServer
		}
		return errUnmaskedClient
	}
	if h.Rsv2 || h.Rsv3 || (h.Rsv1 && c.z == nil) {
		return errReservedBits
	}
	if h.Op.IsControl() {
		if h.Rsv1 {
			return errRsv1Cont
		}
		return nil
	}
	have := 0
	if h.Op == OpContinuation {
		if c.msgOp == 0 {
			return errContNoStart
		}
		if h.Rsv1 {
			return errRsv1Cont
		}
		if c.msgDeflate {
			have = len(*c.z.zbuf)
		} else {
			have = len(*c.buf) - c.msgStart
		}
	} else if c.msgOp != 0 {
		return errDataInMessage
	}
	limit := int(c.maxMessage)
	if h.Rsv1 || h.Op == OpContinuation && c.msgDeflate {
		limit = CompressedBound(limit)
	}
	if h.Length > uint64(limit-have) {
		return errTooBig
	}
	return nil
}

// frame acts on one whole frame whose header passed check.
func (c *Conn) frame(out []byte, h *FrameHeader, payload []byte) ([]byte, *CloseError) {
	switch h.Op {
	case OpPing:
		c.emit(Event{Kind: EventPing, Op: OpPing, Payload: payload})
		if !c.closeSent {
			out = c.appendControl(out, OpPong, payload)
		}
		return out, nil
	case OpPong:
		c.emit(Event{Kind: EventPong, Op: OpPong, Payload: payload})
		return out, nil
	case OpClose:
		return c.onClose(out, payload)
	case OpText, OpBinary:
		if h.Fin && !h.Rsv1 {
			// The common case: the message is the frame, delivered in place.
			if h.Op == OpText && !utf8.Valid(payload) {
				return out, errInvalidUTF8
			}
			c.emit(Event{Kind: EventMessage, Op: h.Op, Payload: payload})
			return out, nil
		}
		c.msgOp, c.msgDeflate = h.Op, h.Rsv1
		c.text.Reset()
		if h.Fin { // compressed, in one frame: inflate from data itself
			return out, c.finish(payload)
		}
		if c.msgDeflate {
			if c.z.zbuf == nil {
				c.z.zbuf = getBuf()
			}
		} else {
			if c.buf == nil {
				c.buf = getBuf()
			}
			c.msgStart = len(*c.buf)
		}
	}
	// The first or a later fragment of a message.
	if c.msgDeflate {
		*c.z.zbuf = append(*c.z.zbuf, payload...)
	} else {
		*c.buf = append(*c.buf, payload...)
		if c.msgOp == OpText && !c.text.Write(payload) {
			return out, errInvalidUTF8
		}
	}
	if !h.Fin {
		return out, nil
	}
	var compressed []byte
	if c.msgDeflate {
		compressed = *c.z.zbuf
	}
	return out, c.finish(compressed)
}

// finish completes the message in progress; compressed is its payload when
// it is compressed.
func (c *Conn) finish(compressed []byte) *CloseError {
	op := c.msgOp
	c.msgOp = 0
	if c.msgDeflate {
		if c.buf == nil {
			c.buf = getBuf()
		}
		c.msgStart = len(*c.buf)
		z := c.z
		var dict []byte
		if !z.recvNoCtx {
			dict = z.hist
		}
		b, err := inflate(*c.buf, c.msgStart, compressed, dict, int(c.maxMessage))
		*c.buf = b
		if z.zbuf != nil {
			*z.zbuf = (*z.zbuf)[:0]
		}
		if err != nil {
			return err.(*CloseError)
		}
		if !z.recvNoCtx {
			z.keepHistory(b[c.msgStart:])
		}
		if op == OpText && !utf8.Valid(b[c.msgStart:]) {
			return errInvalidUTF8
		}
	} else if op == OpText && !c.text.Done() {
		return errInvalidUTF8
	}
	c.emit(Event{Kind: EventMessage, Op: op, Payload: (*c.buf)[c.msgStart:]})
	return nil
}

// keepHistory slides the peer's window over msg, an inflated message.
func (z *deflation) keepHistory(msg []byte) {
	w := 1 << z.recvBits
	if z.hist == nil {
		z.hist = make([]byte, 0, w)
	}
	if len(msg) >= w {
		z.hist = append(z.hist[:0], msg[len(msg)-w:]...)
		return
	}
	if keep := w - len(msg); len(z.hist) > keep {
		z.hist = z.hist[:copy(z.hist, z.hist[len(z.hist)-keep:])]
	}
	z.hist = append(z.hist, msg...)
}

// onClose handles the peer's close frame (RFC 6455 sections 5.5.1, 7.1.5).
func (c *Conn) onClose(out, payload []byte) ([]byte, *CloseError) {
	code := CloseNoStatus
	var reason []byte
	switch {
	case len(payload) == 1:
		return out, errCloseLen1
	case len(payload) >= 2:
		code = int(binary.BigEndian.Uint16(payload))
		if !ValidCloseCode(code) {
			return out, errCloseCode
		}
		reason = payload[2:]
		if !utf8.Valid(reason) {
			return out, errInvalidReason
		}
	}
	c.closeReceived = true
	c.emit(Event{Kind: EventClose, Op: OpClose, Payload: reason, Code: code})
	if !c.closeSent {
		c.closeSent = true
		var b [2]byte
		p := b[:0]
		if code != CloseNoStatus {
			p = binary.BigEndian.AppendUint16(p, uint16(code)) // echo the code
		}
		out = c.appendControl(out, OpClose, p)
	}
	return out, nil
}

// fail records a protocol error and appends the close frame carrying it.
func (c *Conn) fail(out []byte, e *CloseError) []byte {
	c.err = e
	if !c.closeSent {
		c.closeSent = true
		out = c.appendClosePayload(out, e.Code, e.Reason)
	}
	return out
}

func (c *Conn) emit(e Event) {
	if c.events == nil {
		c.events, c.pooled = getEvents(), true
	}
	*c.events = append(*c.events, e)
}

// Recycle ends the validity of the last events' payloads and gives the
// buffers they used back to their pools, so the Conn holds none while it
// waits for more bytes. Feed does it itself when it starts; a server with
// many idle connections calls it once it has handled the events.
func (c *Conn) Recycle() { c.recycle() }

func (c *Conn) recycle() {
	c.dropEvents()
	c.recycleBufs()
}

// recycleBufs gives the message buffers back, keeping a fragmented
// message's start.
func (c *Conn) recycleBufs() {
	if c.buf == nil {
		return
	}
	if c.msgOp != 0 && !c.msgDeflate {
		// Keep the fragments of the message in progress, moved to the front.
		b := *c.buf
		*c.buf = b[:copy(b, b[c.msgStart:])]
		c.msgStart = 0
		return
	}
	putBuf(c.buf)
	c.buf, c.msgStart = nil, 0
}

// Release gives back everything c holds: buffers, its compressor and the
// history window. Call it when the connection is over; c is then unusable
// until the next Init.
func (c *Conn) Release() {
	c.msgOp = 0
	c.recycle()
	if z := c.z; z != nil {
		if z.zbuf != nil {
			putBuf(z.zbuf)
			z.zbuf = nil
		}
		z.comp, z.hist = nil, nil
	}
}
