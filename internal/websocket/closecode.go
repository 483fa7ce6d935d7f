package websocket

import "strconv"

// Close status codes (RFC 6455 section 7.4.1).
const (
	CloseNormal             = 1000
	CloseGoingAway          = 1001
	CloseProtocolError      = 1002
	CloseUnsupportedData    = 1003
	CloseNoStatus           = 1005 // never on the wire: the close frame had no code
	CloseAbnormal           = 1006 // never on the wire: the connection dropped without a close
	CloseInvalidPayload     = 1007
	ClosePolicyViolation    = 1008
	CloseTooBig             = 1009
	CloseMandatoryExtension = 1010
	CloseInternalError      = 1011
)

// ValidCloseCode reports whether code may appear in a close frame on the
// wire: 1000-1003, 1007-1011 (RFC 6455 section 7.4.1), 1012-1014 (registered
// with IANA since) and the application range 3000-4999. 1004, 1005, 1006
// and 1015 are reserved and never sent.
func ValidCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003:
		return true
	case code >= 1007 && code <= 1014:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// CloseError is the reason a connection ends: a protocol error found by this
// side (Feed returns it after appending the close frame carrying Code), or
// the close the peer sent.
type CloseError struct {
	Code   int
	Reason string
}

// Error returns "websocket: close <code>: <reason>".
func (e *CloseError) Error() string {
	s := "websocket: close " + strconv.Itoa(e.Code)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

func protoErr(reason string) *CloseError {
	return &CloseError{Code: CloseProtocolError, Reason: reason}
}
