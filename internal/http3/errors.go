package http3

import (
	"errors"
	"strconv"
)

// ErrCode is an HTTP/3 application error code (RFC 9114 section 8.1, RFC
// 9204 section 6), carried by QUIC's CONNECTION_CLOSE, RESET_STREAM and
// STOP_SENDING frames.
type ErrCode uint64

// The error codes of RFC 9114 section 8.1 and RFC 9204 section 6.
const (
	ErrCodeNo                   ErrCode = 0x100
	ErrCodeGeneralProtocol      ErrCode = 0x101
	ErrCodeInternal             ErrCode = 0x102
	ErrCodeStreamCreation       ErrCode = 0x103
	ErrCodeClosedCriticalStream ErrCode = 0x104
	ErrCodeFrameUnexpected      ErrCode = 0x105
	ErrCodeFrame                ErrCode = 0x106
	ErrCodeExcessiveLoad        ErrCode = 0x107
	ErrCodeID                   ErrCode = 0x108
	ErrCodeSettings             ErrCode = 0x109
	ErrCodeMissingSettings      ErrCode = 0x10a
	ErrCodeRequestRejected      ErrCode = 0x10b
	ErrCodeRequestCancelled     ErrCode = 0x10c
	ErrCodeRequestIncomplete    ErrCode = 0x10d
	ErrCodeMessage              ErrCode = 0x10e
	ErrCodeConnect              ErrCode = 0x10f
	ErrCodeVersionFallback      ErrCode = 0x110

	ErrCodeQPACKDecompressionFailed ErrCode = 0x200
	ErrCodeQPACKEncoderStream       ErrCode = 0x201
	ErrCodeQPACKDecoderStream       ErrCode = 0x202
)

var errCodeNames = [...]string{
	"H3_NO_ERROR", "H3_GENERAL_PROTOCOL_ERROR", "H3_INTERNAL_ERROR",
	"H3_STREAM_CREATION_ERROR", "H3_CLOSED_CRITICAL_STREAM", "H3_FRAME_UNEXPECTED",
	"H3_FRAME_ERROR", "H3_EXCESSIVE_LOAD", "H3_ID_ERROR", "H3_SETTINGS_ERROR",
	"H3_MISSING_SETTINGS", "H3_REQUEST_REJECTED", "H3_REQUEST_CANCELLED",
	"H3_REQUEST_INCOMPLETE", "H3_MESSAGE_ERROR", "H3_CONNECT_ERROR",
	"H3_VERSION_FALLBACK",
}

var qpackCodeNames = [...]string{
	"QPACK_DECOMPRESSION_FAILED", "QPACK_ENCODER_STREAM_ERROR", "QPACK_DECODER_STREAM_ERROR",
}

// String returns the code's name from the RFCs, or its number in hex for
// codes they do not name (a receiver treats those as H3_NO_ERROR, RFC 9114
// section 9, but they are reported as sent).
func (c ErrCode) String() string {
	switch {
	case c >= ErrCodeNo && c <= ErrCodeVersionFallback:
		return errCodeNames[c-ErrCodeNo]
	case c >= ErrCodeQPACKDecompressionFailed && c <= ErrCodeQPACKDecoderStream:
		return qpackCodeNames[c-ErrCodeQPACKDecompressionFailed]
	}
	return "H3_0x" + strconv.FormatUint(uint64(c), 16)
}

// ConnError is a connection error (RFC 9114 section 8): the endpoint that
// detects it closes the QUIC connection with Code.
type ConnError struct {
	Code   ErrCode
	Reason string
}

// Error returns "http3: connection error CODE: reason".
func (e ConnError) Error() string {
	return "http3: connection error " + e.Code.String() + ": " + e.Reason
}

// StreamError is a stream error (RFC 9114 section 8): the endpoint that
// detects it resets the stream, or stops reading it, with Code; the
// connection goes on.
type StreamError struct {
	StreamID uint64
	Code     ErrCode
	Reason   string
}

// Error returns "http3: stream N error CODE: reason".
func (e StreamError) Error() string {
	return "http3: stream " + strconv.FormatUint(e.StreamID, 10) +
		" error " + e.Code.String() + ": " + e.Reason
}

func connErr(code ErrCode, reason string) error { return ConnError{Code: code, Reason: reason} }

// CodeOf returns the HTTP/3 error code an error carries: the Code of a
// ConnError or StreamError, H3_MESSAGE_ERROR for a MalformedError,
// QPACK_DECOMPRESSION_FAILED for ErrFieldSectionTooLarge, ErrCodeNo for
// nil, ErrCodeInternal otherwise.
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
	var me MalformedError
	if errors.As(err, &me) {
		return ErrCodeMessage
	}
	if errors.Is(err, ErrFieldSectionTooLarge) {
		return ErrCodeQPACKDecompressionFailed
	}
	return ErrCodeInternal
}
