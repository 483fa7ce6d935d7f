package http2

import (
	"errors"

	"github.com/gust-http/gust/internal/head"
)

// ClientConfig sets a ClientConn's limits; the zero value of each field
// picks the default named beside it.
type ClientConfig struct {
	// MaxStreams caps the streams open at once, below the peer's
	// SETTINGS_MAX_CONCURRENT_STREAMS. Default 100.
	MaxStreams int
	// StreamWindow is the receive window of each stream, advertised as
	// SETTINGS_INITIAL_WINDOW_SIZE. Default 1 MiB.
	StreamWindow uint32
	// ConnWindow is the connection's receive window, opened with a
	// WINDOW_UPDATE after the preface. Default 16 MiB; at least 65535.
	ConnWindow uint32
	// MaxFrameSize is the largest frame payload accepted, advertised as
	// SETTINGS_MAX_FRAME_SIZE. Default 16384.
	MaxFrameSize uint32
	// Headers bounds response header blocks; MaxHeaderListSize is advertised
	// as SETTINGS_MAX_HEADER_LIST_SIZE.
	Headers HeaderLimits
	// HeaderFunc, if set, sees every response header and trailer field
	// with the Tag of its request. The strings may be kept.
	HeaderFunc func(tag uint64, name, value string)
}

func (c ClientConfig) withDefaults() ClientConfig {
	if c.MaxStreams <= 0 {
		c.MaxStreams = 100
	}
	if c.StreamWindow == 0 {
		c.StreamWindow = 1 << 20
	}
	if c.StreamWindow > MaxWindowSize {
		c.StreamWindow = MaxWindowSize
	}
	if c.ConnWindow < DefaultInitialWindowSize {
		c.ConnWindow = 16 << 20
	}
	if c.ConnWindow > MaxWindowSize {
		c.ConnWindow = MaxWindowSize
	}
	if c.MaxFrameSize == 0 {
		c.MaxFrameSize = DefaultMaxFrameSize
	}
	c.MaxFrameSize = min(max(c.MaxFrameSize, DefaultMaxFrameSize), MaxFrameSizeLimit)
	c.Headers = c.Headers.withDefaults()
	return c
}

// Field is one header field to send; Name must be lowercase.
type Field struct {
	Name, Value string
}

// Request is what ClientConn.Open sends. The engine keeps Body (not a copy)
// until the stream ends, so it must not change meanwhile; it keeps nothing
// else of a Request once Open returns.
type Request struct {
	// Head, if set, is the request as both protocols share it: its Method,
	// Host (as :authority), Target (as :path) and Headers, whose names may
	// be in any case and whose Host and connection-specific fields are left
	// out. Method, Authority, Path and Header are then not used; Scheme,
	// if empty, is Head.Scheme.
	Head *head.Request
	// Without Head: the pseudo-headers, and the fields after them, with
	// lowercase names and no connection-specific field (connection,
	// transfer-encoding...).
	Method, Scheme, Authority, Path string
	Header                          []Field
	// Protocol, with Method CONNECT, makes an extended CONNECT (RFC 8441):
	// sent as :protocol, which the peer must have allowed
	// (PeerSettings().EnableConnectProtocol). Not used with Head.
	Protocol string
	// Tunnel keeps the stream open after HEADERS (and Body): later bytes
	// go out with WriteData, as a CONNECT tunnel's do.
	Tunnel bool
	// Body is sent in DATA frames under flow control; empty means the
	// HEADERS frame ends the stream.
	Body []byte
	// WantData asks for EventData events carrying the response body;
	// without it the body is only counted.
	WantData bool
	// Tag is the caller's: it comes back in every event of the stream.
	Tag uint64
}

// Errors Open returns; none of them harms the connection.
var (
	// ErrNoStream: CanOpen is 0 (the stream limit is reached, the peer's
	// SETTINGS are not in yet, the peer sent GOAWAY, or ids ran out).
	ErrNoStream = errors.New("http2: no stream can be opened now")
	// ErrConnClosed: the connection failed; Err says why.
	ErrConnClosed = errors.New("http2: connection closed")
)

// maxStreamID is the largest stream identifier (31 bits).
const maxStreamID = 1<<31 - 1

// ClientConn is the client side of one HTTP/2 connection, sans I/O: Start
// and Open append bytes to write to a caller-owned buffer, Feed takes the
// bytes read and returns events. It owns no socket and no goroutine and is
// not safe for concurrent use. In steady state (requests repeating, the
// peer's HPACK table warm) a request/response cycle allocates nothing.
type ClientConn struct {
	cfg ClientConfig
	connCore
	slots   []clientStream // grown on demand up to MaxStreams, then reused
	free    []int32
	pending []int32 // slots with request body left to send
	nextID  uint32
	active  int

	events []Event

	gotSettings bool   // the peer's first SETTINGS arrived
	acked       bool   // the peer acknowledged this side's SETTINGS
	goAway      bool   // the peer sent GOAWAY
	shutdown    bool   // this side sent GOAWAY
	lastID      uint32 // its last stream id
	err         error  // the connection error that ended the connection

	hdr headerBlock // the response header block being decoded

	encCache [encCacheSize]encCache // header blocks of recent requests
	encGen   uint64                 // bumped whenever the encoder's table may change
	encNext  int                    // the cache entry to replace next
	key      []byte                 // the key of the request being encoded
	strs     map[string]string      // names and values interned for the table
	strBytes int                    // their bytes, up to internBudget
}

// NewClientConn returns a connection engine; call Start before anything else.
func NewClientConn(cfg ClientConfig) *ClientConn {
	cfg = cfg.withDefaults()
	c := &ClientConn{
		cfg:      cfg,
		connCore: newConnCore(cfg.MaxFrameSize, cfg.ConnWindow, cfg.MaxStreams),
		nextID:   1,
	}
	c.dec = NewHeaderDecoder(cfg.Headers, c.onField)
	c.hdr.slot = -1
	return c
}

// Start appends the connection preface, the client's SETTINGS (push
// disabled, the windows, frame and header list sizes) and the WINDOW_UPDATE
// that opens the connection window to ConnWindow.
func (c *ClientConn) Start(out []byte) []byte {
	out = append(out, ClientPreface...)
	out = AppendSettings(out,
		Setting{SettingEnablePush, 0},
		Setting{SettingInitialWindowSize, c.cfg.StreamWindow},
		Setting{SettingMaxFrameSize, c.cfg.MaxFrameSize},
		Setting{SettingMaxHeaderListSize, c.cfg.Headers.MaxHeaderListSize},
		Setting{SettingHeaderTableSize, c.cfg.Headers.MaxTableSize},
	)
	if incr := c.cfg.ConnWindow - DefaultInitialWindowSize; incr > 0 {
		out = AppendWindowUpdate(out, 0, incr)
	}
	return out
}

// CanOpen returns how many streams Open may start now: zero until the
// peer's first SETTINGS arrives (so its SETTINGS_MAX_CONCURRENT_STREAMS is
// known), after GOAWAY, after a connection error, or when stream ids run
// out; otherwise the smaller of MaxStreams and the peer's limit, less the
// streams open.
func (c *ClientConn) CanOpen() int {
	if !c.gotSettings || c.goAway || c.shutdown || c.err != nil || c.nextID > maxStreamID {
		return 0
	}
	limit := int64(c.cfg.MaxStreams)
	if p := int64(c.peer.MaxConcurrentStreams); p < limit {
		limit = p
	}
	n := limit - int64(c.active)
	if left := int64(maxStreamID-c.nextID)/2 + 1; left < n {
		n = left
	}
	return int(max(n, 0))
}

// Active returns the streams open: sent and not yet finished both ways.
func (c *ClientConn) Active() int { return c.active }

// GoingAway reports whether the peer sent GOAWAY: no stream may be opened
// and the connection should close once Active is 0.
func (c *ClientConn) GoingAway() bool { return c.goAway }

// Err returns the connection error that ended the connection, or nil.
func (c *ClientConn) Err() error { return c.err }

// FlowBlocked reports whether some request body waits for the peer to open
// a flow-control window. A caller that sees it stay true past a deadline
// has met a stalled peer; the engine itself never spins on it.
func (c *ClientConn) FlowBlocked() bool { return len(c.pending) > 0 }

// SettingsAcked reports whether the peer acknowledged the SETTINGS Start
// sent; a caller enforcing SETTINGS_TIMEOUT (RFC 9113 section 6.5.3) checks
// it when its timer fires.
func (c *ClientConn) SettingsAcked() bool { return c.acked }

// Ping appends a PING frame; the peer's acknowledgement is not reported
// (a caller measuring round trips times the bytes itself).
func (c *ClientConn) Ping(out []byte, data [8]byte) []byte { return AppendPing(out, data, false) }

// PeerSettings returns the peer's settings as last received.
func (c *ClientConn) PeerSettings() Settings { return c.peer }

// Open starts a request on a new stream and returns its id: HEADERS (and
// CONTINUATION) frames, then as much of the body as the windows allow; the
// rest goes out from later Feed calls as the peer opens its windows. It
// returns ErrNoStream when CanOpen is 0 and ErrConnClosed after a
// connection error; out is then unchanged.
func (c *ClientConn) Open(out []byte, req *Request) ([]byte, uint32, error) {
	if c.err != nil {
		return out, 0, ErrConnClosed
	}
	if c.CanOpen() == 0 {
		return out, 0, ErrNoStream
	}
	slot := takeSlot(&c.slots, &c.free)
	id := c.nextID
	c.nextID += 2

	out = AppendHeaders(out, id, c.encodeRequest(req), len(req.Body) == 0 && !req.Tunnel, c.peer.MaxFrameSize)

	s := &c.slots[slot]
	*s = clientStream{
		id:            id,
		tag:           req.Tag,
		send:          NewSendWindow(c.peer.InitialWindowSize),
		recv:          NewRecvWindow(c.cfg.StreamWindow),
		body:          req.Body,
		wantData:      req.WantData,
		localDone:     len(req.Body) == 0 && !req.Tunnel,
		tunnel:        req.Tunnel,
		contentLength: -1,
		noBody:        req.isHead(),
	}
	c.streams.put(id, slot)
	c.active++
	if len(req.Body) > 0 {
		c.pending = append(c.pending, slot)
		out = c.flush(out)
	}
	return out, id, nil
}

// WriteData queues data on a tunnel's stream (Request.Tunnel) and appends
// as many DATA frames as the windows allow; the rest goes out from later
// Feed calls. The engine keeps data (not a copy) until Pending is 0.
// endStream ends this side of the stream after data (empty data: at
// once).
func (c *ClientConn) WriteData(out []byte, id uint32, data []byte, endStream bool) ([]byte, error) {
	slot := c.streams.get(id)
	if slot < 0 || c.err != nil || c.slots[slot].localDone {
		return out, ErrStreamNotOpen
	}
	s := &c.slots[slot]
	if len(s.body) > 0 {
		return out, ErrDataPending
	}
	if len(data) == 0 {
		if endStream {
			out = AppendData(out, id, nil, true)
			s.localDone = true
			if s.remoteDone {
				c.closeStream(slot)
			}
		}
		return out, nil
	}
	s.body, s.tunnel = data, !endStream
	c.pending = append(c.pending, slot)
	return c.flush(out), nil
}

// Pending returns the bytes queued on a stream that its windows have not
// admitted yet.
func (c *ClientConn) Pending(id uint32) int {
	if slot := c.streams.get(id); slot >= 0 {
		return len(c.slots[slot].body)
	}
	return 0
}

// Cancel resets an open stream with CANCEL; it is a no-op for a stream that
// is not open. No event is reported for it.
func (c *ClientConn) Cancel(out []byte, streamID uint32) []byte {
	if slot := c.streams.get(streamID); slot >= 0 && c.err == nil {
		out = AppendRSTStream(out, streamID, ErrCodeCancel)
		c.closeStream(slot)
	}
	return out
}

// Shutdown appends a GOAWAY with NO_ERROR: the client will open no more
// streams. Streams already open go on.
func (c *ClientConn) Shutdown(out []byte) []byte {
	c.shutdown = true
	return AppendGoAway(out, 0, ErrCodeNo, nil)
}
