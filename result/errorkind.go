package result

// ErrorKind classifies a failed request or connection attempt.
type ErrorKind uint8

// The kinds of error a run counts. Every failed request is counted once,
// under the first thing that went wrong.
const (
	ErrConnectRefused ErrorKind = iota // the target refused the connection
	ErrConnectTimeout                  // no connection within Timeout
	ErrConnect                         // any other failure to connect
	ErrReset                           // connection reset or broken pipe
	ErrClosed                          // the server closed the connection before answering
	ErrReadTimeout                     // no complete response within Timeout
	ErrProtocol                        // the response could not be parsed (HTTP/2: a protocol error)
	// The kinds below are HTTP/2's; a run over HTTP/1.1 never counts them
	// and its reports do not list them (see HTTP2Only).
	ErrStreamReset // the server reset the stream (RST_STREAM; HTTP2.Resets has its code)
	ErrGoAway      // the server's GOAWAY ended the stream before its response
	ErrFlowStall   // a request body waited past Timeout for a flow-control window
	ErrCompression // the response's header block could not be decoded (HPACK)
	// ErrUpgrade is WebSocket's: the opening handshake got no valid 101
	// (WebSocket.UpgradeStatus has the status); only WebSocket runs count
	// it, and only their reports list it (see WebSocketOnly).
	ErrUpgrade
	// NumErrorKinds is the number of kinds, for arrays indexed by ErrorKind.
	NumErrorKinds
)

var errorKindNames = [NumErrorKinds]string{
	ErrConnectRefused: "connect_refused",
	ErrConnectTimeout: "connect_timeout",
	ErrConnect:        "connect_error",
	ErrReset:          "reset",
	ErrClosed:         "closed",
	ErrReadTimeout:    "read_timeout",
	ErrProtocol:       "protocol",
	ErrStreamReset:    "stream_reset",
	ErrGoAway:         "goaway",
	ErrFlowStall:      "flow_stall",
	ErrCompression:    "compression",
	ErrUpgrade:        "upgrade",
}

// String returns the kind's name as used in reports, e.g. "connect_refused".
func (k ErrorKind) String() string {
	if k < NumErrorKinds {
		return errorKindNames[k]
	}
	return "unknown"
}

// ErrorKinds lists every ErrorKind in report order.
func ErrorKinds() []ErrorKind {
	kinds := make([]ErrorKind, NumErrorKinds)
	for i := range kinds {
		kinds[i] = ErrorKind(i)
	}
	return kinds
}

// HTTP2Only reports whether k is a kind only HTTP/2 runs count, which
// reports of HTTP/1.1 runs leave out so that they read as before.
func (k ErrorKind) HTTP2Only() bool { return k >= ErrStreamReset && k <= ErrCompression }

// WebSocketOnly reports whether k is a kind only WebSocket runs count,
// which reports of HTTP runs leave out so that they read as before.
func (k ErrorKind) WebSocketOnly() bool { return k == ErrUpgrade }
