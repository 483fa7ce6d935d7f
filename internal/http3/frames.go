package http3

import "github.com/gust-http/gust/internal/quic"

// FrameType identifies an HTTP/3 frame (RFC 9114 section 7.2).
type FrameType uint64

// The frame types of RFC 9114 section 7.2.
const (
	FrameData        FrameType = 0x00
	FrameHeaders     FrameType = 0x01
	FrameCancelPush  FrameType = 0x03
	FrameSettings    FrameType = 0x04
	FramePushPromise FrameType = 0x05
	FrameGoAway      FrameType = 0x07
	FrameMaxPushID   FrameType = 0x0d
)

var frameNames = [...]string{
	FrameData: "DATA", FrameHeaders: "HEADERS", 0x02: "PRIORITY(h2)",
	FrameCancelPush: "CANCEL_PUSH", FrameSettings: "SETTINGS",
	FramePushPromise: "PUSH_PROMISE", 0x06: "PING(h2)", FrameGoAway: "GOAWAY",
	0x08: "WINDOW_UPDATE(h2)", 0x09: "CONTINUATION(h2)", FrameMaxPushID: "MAX_PUSH_ID",
}

// String returns the frame type's name, or "UNKNOWN" for types HTTP/3 does
// not define.
func (t FrameType) String() string {
	if t < FrameType(len(frameNames)) && frameNames[t] != "" {
		return frameNames[t]
	}
	return "UNKNOWN"
}

// isHTTP2Only reports the HTTP/2 frame types HTTP/3 reserves and forbids
// (PRIORITY, PING, WINDOW_UPDATE, CONTINUATION; RFC 9114 section 7.2.8).
func (t FrameType) isHTTP2Only() bool {
	return t == 0x02 || t == 0x06 || t == 0x08 || t == 0x09
}

// IsReservedCode reports whether v has the form 0x1f*N + 0x21 that RFC 9114
// reserves, in every registry (frame types, stream types, settings, error
// codes), to exercise the rule that unknown values are ignored.
func IsReservedCode(v uint64) bool { return v >= 0x21 && (v-0x21)%0x1f == 0 }

// StreamType is the type a unidirectional stream starts with (RFC 9114
// section 6.2, RFC 9204 section 4.2).
type StreamType uint64

// The unidirectional stream types of RFC 9114 section 6.2 and RFC 9204
// section 4.2. Types other than these, reserved ones among them, are read
// and discarded, never a connection error.
const (
	StreamControl      StreamType = 0x00
	StreamPush         StreamType = 0x01
	StreamQPACKEncoder StreamType = 0x02
	StreamQPACKDecoder StreamType = 0x03
)

// Known reports whether the type is one of the four this package knows;
// a stream of any other type is to be ignored (RFC 9114 section 6.2).
func (t StreamType) Known() bool { return t <= StreamQPACKDecoder }

// AppendStreamType appends the type that opens a unidirectional stream.
func AppendStreamType(b []byte, t StreamType) []byte { return quic.AppendVarint(b, uint64(t)) }

// ParseStreamType decodes the type at the start of a unidirectional
// stream: n == 0 while the type is incomplete.
func ParseStreamType(b []byte) (t StreamType, n int) {
	v, n := parseVarint(b)
	return StreamType(v), n
}

// AppendFrameHeader appends a frame's type and payload length; the payload
// follows. With DATA this sends a body piece without copying it.
func AppendFrameHeader(b []byte, t FrameType, length uint64) []byte {
	return quic.AppendVarint(quic.AppendVarint(b, uint64(t)), length)
}

// AppendData appends a DATA frame carrying p.
func AppendData(b []byte, p []byte) []byte {
	return append(AppendFrameHeader(b, FrameData, uint64(len(p))), p...)
}

// AppendHeaders appends a HEADERS frame carrying an encoded field section
// (see AppendSectionPrefix and AppendField).
func AppendHeaders(b []byte, section []byte) []byte {
	return append(AppendFrameHeader(b, FrameHeaders, uint64(len(section))), section...)
}

// AppendPushPromise appends a PUSH_PROMISE frame: the push ID and the
// promised request's encoded field section.
func AppendPushPromise(b []byte, pushID uint64, section []byte) []byte {
	b = AppendFrameHeader(b, FramePushPromise, uint64(quic.VarintLen(pushID)+len(section)))
	return append(quic.AppendVarint(b, pushID), section...)
}

// appendIDFrame appends a frame whose payload is one variable-length
// integer.
func appendIDFrame(b []byte, t FrameType, id uint64) []byte {
	return quic.AppendVarint(AppendFrameHeader(b, t, uint64(quic.VarintLen(id))), id)
}

// AppendCancelPush appends a CANCEL_PUSH frame for pushID.
func AppendCancelPush(b []byte, pushID uint64) []byte {
	return appendIDFrame(b, FrameCancelPush, pushID)
}

// AppendGoAway appends a GOAWAY frame: from a server, the first client
// bidirectional stream ID it will not process; from a client, a push ID.
func AppendGoAway(b []byte, id uint64) []byte { return appendIDFrame(b, FrameGoAway, id) }

// AppendMaxPushID appends a MAX_PUSH_ID frame (sent by clients only).
func AppendMaxPushID(b []byte, pushID uint64) []byte {
	return appendIDFrame(b, FrameMaxPushID, pushID)
}
