package http2

// EventKind says what happened to a stream or the connection.
type EventKind uint8

// The events a ClientConn reports from Feed.
const (
	// EventHeaders: the final (non-1xx) response headers arrived; Status is
	// set.
	EventHeaders EventKind = iota + 1
	// EventData: DATA arrived on a stream opened with WantData; Data aliases
	// the bytes given to Feed and is valid until the caller reuses them.
	EventData
	// EventTrailers: a trailer block arrived; EventEnd follows.
	EventTrailers
	// EventEnd: the response is complete (END_STREAM received); Status and
	// BodyBytes are set. The request succeeded at the HTTP/2 level.
	EventEnd
	// EventReset: the peer reset the stream with Code. Retryable is set for
	// REFUSED_STREAM, which promises the request was not processed.
	EventReset
	// EventRefused: a GOAWAY's last stream id is below this stream, so the
	// peer never processed it; it may be retried on a new connection.
	EventRefused
	// EventFailed: the stream ended on an error found here (a malformed
	// response, a flow-control violation, a connection error); Code is what
	// was sent to the peer and Err says why.
	EventFailed
	// EventGoAway: the peer sent GOAWAY; StreamID is its last stream id and
	// Code its error code. No new stream may be opened.
	EventGoAway
)

var eventNames = [...]string{"", "headers", "data", "trailers", "end", "reset", "refused", "failed", "goaway"}

// String returns a short lowercase name of the kind.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
}

// Event is one thing Feed observed. Fields other than Kind, StreamID and
// Tag are set only for the kinds that document them.
type Event struct {
	Kind      EventKind
	StreamID  uint32
	Tag       uint64 // the Request's Tag
	Status    int
	Code      ErrCode
	BodyBytes int64 // DATA payload bytes received on the stream
	Data      []byte
	Err       error
	Retryable bool
}
