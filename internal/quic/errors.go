package quic

import "strconv"

// TransportErrorCode is a QUIC transport error code (RFC 9000 section
// 20.1), carried by a CONNECTION_CLOSE frame of type 0x1c.
type TransportErrorCode uint64

// The transport error codes of RFC 9000 section 20.1. A TLS alert is
// CryptoErrorBase plus the alert's code.
const (
	NoError                 TransportErrorCode = 0x00
	InternalError           TransportErrorCode = 0x01
	ConnectionRefused       TransportErrorCode = 0x02
	FlowControlError        TransportErrorCode = 0x03
	StreamLimitError        TransportErrorCode = 0x04
	StreamStateError        TransportErrorCode = 0x05
	FinalSizeError          TransportErrorCode = 0x06
	FrameEncodingError      TransportErrorCode = 0x07
	TransportParameterError TransportErrorCode = 0x08
	ConnectionIDLimitError  TransportErrorCode = 0x09
	ProtocolViolation       TransportErrorCode = 0x0a
	InvalidToken            TransportErrorCode = 0x0b
	ApplicationError        TransportErrorCode = 0x0c
	CryptoBufferExceeded    TransportErrorCode = 0x0d
	KeyUpdateError          TransportErrorCode = 0x0e
	AEADLimitReached        TransportErrorCode = 0x0f
	NoViablePath            TransportErrorCode = 0x10
	CryptoErrorBase         TransportErrorCode = 0x0100
)

var transportErrorNames = [...]string{
	"NO_ERROR", "INTERNAL_ERROR", "CONNECTION_REFUSED", "FLOW_CONTROL_ERROR",
	"STREAM_LIMIT_ERROR", "STREAM_STATE_ERROR", "FINAL_SIZE_ERROR",
	"FRAME_ENCODING_ERROR", "TRANSPORT_PARAMETER_ERROR",
	"CONNECTION_ID_LIMIT_ERROR", "PROTOCOL_VIOLATION", "INVALID_TOKEN",
	"APPLICATION_ERROR", "CRYPTO_BUFFER_EXCEEDED", "KEY_UPDATE_ERROR",
	"AEAD_LIMIT_REACHED", "NO_VIABLE_PATH",
}

// String returns the code's name in the RFC, CRYPTO_ERROR(alert) for a TLS
// alert, or the number.
func (c TransportErrorCode) String() string {
	switch {
	case c < TransportErrorCode(len(transportErrorNames)):
		return transportErrorNames[c]
	case c >= CryptoErrorBase && c < CryptoErrorBase+0x100:
		return "CRYPTO_ERROR(" + strconv.Itoa(int(c-CryptoErrorBase)) + ")"
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

// TransportError is a connection error the peer is told of in a
// CONNECTION_CLOSE frame: the code and a reason for logs. The parsers
// return shared values of it, so returning one allocates nothing.
type TransportError struct {
	Code   TransportErrorCode
	Reason string
	// Cause is what made this end fail, when it was another package's
	// error (crypto/tls's refusal of a certificate, say); nil otherwise.
	Cause error
}

// Unwrap returns Cause.
func (e *TransportError) Unwrap() error { return e.Cause }

// Error returns the code's name and the reason.
func (e *TransportError) Error() string {
	return "quic: " + e.Code.String() + ": " + e.Reason
}

// frameError returns a FRAME_ENCODING_ERROR with reason; called only to
// build the package's shared error values.
func frameError(reason string) *TransportError {
	return &TransportError{Code: FrameEncodingError, Reason: reason}
}
