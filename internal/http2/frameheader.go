package http2

import "encoding/binary"

// FrameType is the type of an HTTP/2 frame (RFC 9113 section 6).
type FrameType uint8

// The frame types of RFC 9113 section 6.
const (
	FrameData         FrameType = 0x0
	FrameHeaders      FrameType = 0x1
	FramePriority     FrameType = 0x2
	FrameRSTStream    FrameType = 0x3
	FrameSettings     FrameType = 0x4
	FramePushPromise  FrameType = 0x5
	FramePing         FrameType = 0x6
	FrameGoAway       FrameType = 0x7
	FrameWindowUpdate FrameType = 0x8
	FrameContinuation FrameType = 0x9
)

var frameTypeNames = [...]string{
	"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS",
	"PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION",
}

// String returns the frame type's name from RFC 9113, or "UNKNOWN".
func (t FrameType) String() string {
	if int(t) < len(frameTypeNames) {
		return frameTypeNames[t]
	}
	return "UNKNOWN"
}

// Flags are a frame header's flag bits; their meaning depends on the type.
type Flags uint8

// The flags of RFC 9113 section 6.
const (
	FlagEndStream  Flags = 0x1  // DATA, HEADERS
	FlagAck        Flags = 0x1  // SETTINGS, PING
	FlagEndHeaders Flags = 0x4  // HEADERS, PUSH_PROMISE, CONTINUATION
	FlagPadded     Flags = 0x8  // DATA, HEADERS, PUSH_PROMISE
	FlagPriority   Flags = 0x20 // HEADERS
)

// Has reports whether every bit of v is set in f.
func (f Flags) Has(v Flags) bool { return f&v == v }

// FrameHeaderLen is the length of the fixed frame header (RFC 9113 section 4.1).
const FrameHeaderLen = 9

// Frame size bounds of RFC 9113 section 4.2 and 6.5.2.
const (
	DefaultMaxFrameSize = 16384     // the initial SETTINGS_MAX_FRAME_SIZE
	MaxFrameSizeLimit   = 1<<24 - 1 // the largest SETTINGS_MAX_FRAME_SIZE allowed
)

// FrameHeader is the 9-byte header every frame starts with.
type FrameHeader struct {
	Length   uint32 // payload length, 24 bits
	Type     FrameType
	Flags    Flags
	StreamID uint32 // 31 bits; the reserved bit is dropped on read
}

// parseFrameHeader reads a frame header from b, which holds at least
// FrameHeaderLen bytes.
func parseFrameHeader(b []byte) FrameHeader {
	return FrameHeader{
		Length:   uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]),
		Type:     FrameType(b[3]),
		Flags:    Flags(b[4]),
		StreamID: binary.BigEndian.Uint32(b[5:9]) & (1<<31 - 1),
	}
}

// appendFrameHeader appends a frame header; length must fit 24 bits.
func appendFrameHeader(dst []byte, length int, t FrameType, f Flags, streamID uint32) []byte {
	return append(dst, byte(length>>16), byte(length>>8), byte(length), byte(t), byte(f),
		byte(streamID>>24)&0x7f, byte(streamID>>16), byte(streamID>>8), byte(streamID))
}

// ClientPreface is the connection preface a client sends first (RFC 9113
// section 3.4), before its SETTINGS frame.
const ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
