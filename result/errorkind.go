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
	ErrProtocol                        // the response could not be parsed
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
