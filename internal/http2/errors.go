package http2

import (
	"errors"
	"strconv"
)

// ErrCode is an HTTP/2 error code, carried by RST_STREAM and GOAWAY
// (RFC 9113 section 7).
type ErrCode uint32

// The error codes of RFC 9113 section 7.
const (
	ErrCodeNo                 ErrCode = 0x0
	ErrCodeProtocol           ErrCode = 0x1
	ErrCodeInternal           ErrCode = 0x2
	ErrCodeFlowControl        ErrCode = 0x3
	ErrCodeSettingsTimeout    ErrCode = 0x4
	ErrCodeStreamClosed       ErrCode = 0x5
	ErrCodeFrameSize          ErrCode = 0x6
	ErrCodeRefusedStream      ErrCode = 0x7
	ErrCodeCancel             ErrCode = 0x8
	ErrCodeCompression        ErrCode = 0x9
	ErrCodeConnect            ErrCode = 0xa
	ErrCodeEnhanceYourCalm    ErrCode = 0xb
	ErrCodeInadequateSecurity ErrCode = 0xc
	ErrCodeHTTP11Required     ErrCode = 0xd
)

var errCodeNames = [...]string{
	"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
	"CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
	"INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
}

// String returns the code's name from RFC 9113, or its number for codes the
// RFC does not name (unknown codes must be treated as INTERNAL_ERROR by a
// receiver, but are still reported as sent).
func (c ErrCode) String() string {
	if int(c) < len(errCodeNames) {
		return errCodeNames[c]
	}
	return "ERR_0x" + strconv.FormatUint(uint64(c), 16)
}

// ConnError is a connection error (RFC 9113 section 5.4.1): the endpoint
// that detects it sends GOAWAY with Code and closes the connection.
type ConnError struct {
	Code   ErrCode
	Reason string
}

// Error returns "http2: connection error CODE: reason".
func (e ConnError) Error() string {
	return "http2: connection error " + e.Code.String() + ": " + e.Reason
}

// StreamError is a stream error (RFC 9113 section 5.4.2): the endpoint that
// detects it sends RST_STREAM with Code on StreamID; the connection goes on.
type StreamError struct {
	StreamID uint32
	Code     ErrCode
	Reason   string
}

// Error returns "http2: stream N error CODE: reason".
func (e StreamError) Error() string {
	return "http2: stream " + strconv.FormatUint(uint64(e.StreamID), 10) +
		" error " + e.Code.String() + ": " + e.Reason
}

// connErr and streamErr build the two error kinds; they exist to keep call
// sites short.
func connErr(code ErrCode, reason string) error { return ConnError{Code: code, Reason: reason} }

func streamErr(id uint32, code ErrCode, reason string) error {
	return StreamError{StreamID: id, Code: code, Reason: reason}
}

// CodeOf returns the HTTP/2 error code an error carries: the Code of a
// ConnError or StreamError, ErrCodeNo for nil, ErrCodeInternal otherwise.
func CodeOf(err error) ErrCode {
	if err == nil {
		return ErrCodeNo
	}
	var ce ConnError
	if errors.As(err, &ce) {
		return ce.Code
	}
	var se StreamError
	if errors.As(err, &se) {
		return se.Code
	}
	return ErrCodeInternal
}
