package http2

import "errors"

// ServerConfig sets a ServerConn's limits; the zero value of each field
// picks the default named beside it.
type ServerConfig struct {
	// MaxStreams is advertised as SETTINGS_MAX_CONCURRENT_STREAMS; a stream
	// opened beyond it is refused with RST_STREAM(REFUSED_STREAM).
	// Default 100.
	MaxStreams int
	// StreamWindow is each stream's receive window, advertised as
	// SETTINGS_INITIAL_WINDOW_SIZE. Default 1 MiB.
	StreamWindow uint32
	// ConnWindow is the connection's receive window. Default 16 MiB.
	ConnWindow uint32
	// MaxFrameSize is advertised as SETTINGS_MAX_FRAME_SIZE. Default 16384.
	MaxFrameSize uint32
	// Headers bounds request header blocks; MaxHeaderListSize is advertised
	// as SETTINGS_MAX_HEADER_LIST_SIZE.
	Headers HeaderLimits
	// MaxResets bounds Rapid Reset (CVE-2023-44487): streams the client
	// resets or the server refuses before their response is complete,
	// less one for each response completed. Past it the connection ends
	// with ENHANCE_YOUR_CALM. Default 200.
	MaxResets int
	// MaxPendingOutput bounds the unwritten bytes (the length of out given
	// to Feed) past which a frame that only asks for an acknowledgement
	// (PING, SETTINGS) ends the connection with ENHANCE_YOUR_CALM: a peer
	// that does not read cannot make the server queue answers forever.
	// Default 1 MiB.
	MaxPendingOutput int
	// ManualBodyCredit, when set, keeps request body bytes counted against
	// the stream and connection windows until the caller passes them to
	// Consume, so a handler that reads slowly slows its client instead of
	// making the server buffer. Otherwise Feed gives the credit back as
	// soon as it reports the bytes.
	ManualBodyCredit bool
	// EnableConnectProtocol advertises SETTINGS_ENABLE_CONNECT_PROTOCOL
	// (RFC 8441) and accepts extended CONNECT requests: :method CONNECT
	// with :protocol, :scheme, :path and :authority, reported with
	// Protocol set; their DATA both ways is the tunnel's (WebSocket's).
	// Without it a request carrying :protocol is malformed.
	EnableConnectProtocol bool
}

func (c ServerConfig) withDefaults() ServerConfig {
	cc := ClientConfig{MaxStreams: c.MaxStreams, StreamWindow: c.StreamWindow, ConnWindow: c.ConnWindow,
		MaxFrameSize: c.MaxFrameSize, Headers: c.Headers}.withDefaults()
	c.MaxStreams, c.StreamWindow, c.ConnWindow = cc.MaxStreams, cc.StreamWindow, cc.ConnWindow
	c.MaxFrameSize, c.Headers = cc.MaxFrameSize, cc.Headers
	if c.MaxResets <= 0 {
		c.MaxResets = 200
	}
	if c.MaxPendingOutput <= 0 {
		c.MaxPendingOutput = 1 << 20
	}
	return c
}

// ServerEventKind says what happened on a server stream or connection.
type ServerEventKind uint8

// The events a ServerConn reports from Feed.
const (
	// ServerRequest: a request's headers arrived. Method, Scheme, Authority,
	// Path and Header are set, and Protocol for an extended CONNECT;
	// EndStream says no body follows.
	ServerRequest ServerEventKind = iota + 1
	// ServerData: request body bytes arrived; Data aliases the bytes given
	// to Feed. EndStream marks the last.
	ServerData
	// ServerTrailers: request trailers arrived in Header; the body ended.
	ServerTrailers
	// ServerReset: the stream ended before its response was sent whole:
	// reset by the client (Code) or by this side for an error (Err).
	ServerReset
	// ServerGoAway: the client sent GOAWAY.
	ServerGoAway
)

// ServerEvent is one thing ServerConn.Feed observed. Header aliases the
// stream's storage and is valid until the stream closes; Data until the
// caller reuses the bytes it fed.
type ServerEvent struct {
	Kind                            ServerEventKind
	StreamID                        uint32
	Method, Scheme, Authority, Path string
	Protocol                        string // an extended CONNECT's :protocol (RFC 8441)
	Header                          []Field
	Data                            []byte
	EndStream                       bool
	Code                            ErrCode
	Err                             error
}

// Errors the response methods return.
var (
	// ErrStreamNotOpen: the stream is not open (never was, closed, reset).
	ErrStreamNotOpen = errors.New("http2: stream not open")
	// ErrDataPending: the stream still holds body bytes the peer's window
	// has not admitted; wait until Pending is 0.
	ErrDataPending = errors.New("http2: response data still pending")
	// ErrHeadersSent: the response headers were already written.
	ErrHeadersSent = errors.New("http2: response headers already sent")
)

// ServerConn is the server side of one HTTP/2 connection, sans I/O: Feed
// takes the bytes read (the client preface first) and returns events; the
// response methods append frames to a caller-owned buffer. It owns no socket
// and no goroutine and is not safe for concurrent use.
type ServerConn struct {
	cfg ServerConfig
	connCore
	slots   []serverStream // grown on demand up to MaxStreams, then reused
	free    []int32
	pending []int32
	active  int

	events []ServerEvent

	gotPreface  bool
	gotSettings bool
	lastPeerID  uint32 // highest stream id the client opened
	shutdown    bool   // this side sent GOAWAY
	goAwayID    uint32 // the last stream id it named
	resets      int    // Rapid Reset score
	err         error

	hdr serverBlock
}

// NewServerConn returns a connection engine. Start writes its SETTINGS.
func NewServerConn(cfg ServerConfig) *ServerConn {
	cfg = cfg.withDefaults()
	s := &ServerConn{
		cfg:      cfg,
		connCore: newConnCore(cfg.MaxFrameSize, cfg.ConnWindow, cfg.MaxStreams),
	}
	s.dec = NewHeaderDecoder(cfg.Headers, s.onField)
	s.hdr.slot = -1
	return s
}

// Start appends the server preface: SETTINGS (streams, windows, frame and
// header list sizes, push disabled, extended CONNECT when enabled) and the WINDOW_UPDATE opening the
// connection window.
func (s *ServerConn) Start(out []byte) []byte {
	set := [...]Setting{
		{SettingMaxConcurrentStreams, uint32(s.cfg.MaxStreams)},
		{SettingInitialWindowSize, s.cfg.StreamWindow},
		{SettingMaxFrameSize, s.cfg.MaxFrameSize},
		{SettingMaxHeaderListSize, s.cfg.Headers.MaxHeaderListSize},
		{SettingEnablePush, 0},
		{SettingEnableConnectProtocol, 1},
	}
	n := len(set)
	if !s.cfg.EnableConnectProtocol {
		n-- // in the same frame when on: a client looks at the first SETTINGS
	}
	out = AppendSettings(out, set[:n]...)
	if incr := s.cfg.ConnWindow - DefaultInitialWindowSize; incr > 0 {
		out = AppendWindowUpdate(out, 0, incr)
	}
	return out
}

// Events returns the events of the last Feed, valid until the next Feed.
func (s *ServerConn) Events() []ServerEvent { return s.events }

// Active returns the streams open.
func (s *ServerConn) Active() int { return s.active }

// Err returns the connection error that ended the connection, or nil.
func (s *ServerConn) Err() error { return s.err }

// Done reports whether the connection may be closed: it failed, or it is
// shutting down with no stream left.
func (s *ServerConn) Done() bool { return s.err != nil || s.shutdown && s.active == 0 }

// FlowBlocked reports whether some response body waits for the client to
// open a window; a caller past its write timeout resets those streams.
func (s *ServerConn) FlowBlocked() bool { return len(s.pending) > 0 }

// Shutdown appends GOAWAY(NO_ERROR) naming the last stream the client
// opened: those streams are finished, later ones are ignored (the client
// retries them elsewhere). Done turns true once Active is 0.
func (s *ServerConn) Shutdown(out []byte) []byte {
	if s.shutdown || s.err != nil {
		return out
	}
	s.shutdown, s.goAwayID = true, s.lastPeerID
	return AppendGoAway(out, s.lastPeerID, ErrCodeNo, nil)
}
