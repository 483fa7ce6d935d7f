package websocket

import "encoding/binary"

// MaxFrameHeaderLen is the longest frame header: 2 bytes, an 8-byte
// extended length and a 4-byte masking key.
const MaxFrameHeaderLen = 14

// MaxControlPayload is the largest payload of a control frame.
const MaxControlPayload = 125

// FrameHeader is a parsed frame header (RFC 6455 section 5.2).
type FrameHeader struct {
	Fin              bool
	Rsv1, Rsv2, Rsv3 bool
	Op               Opcode
	Masked           bool
	Mask             [4]byte
	Length           uint64 // payload length, below 2^63
}

// Errors ParseFrameHeader returns; all close the connection with 1002.
var (
	errReservedOp     = protoErr("reserved opcode")
	errControlFrag    = protoErr("fragmented control frame")
	errControlTooLong = protoErr("control frame payload over 125 bytes")
	errLengthTopBit   = protoErr("64-bit payload length with the top bit set")
	errReservedBits   = protoErr("reserved bits set without an extension")
	errUnmaskedClient = protoErr("unmasked frame from a client")
	errMaskedServer   = protoErr("masked frame from a server")
	errContNoStart    = protoErr("continuation frame without a message to continue")
	errDataInMessage  = protoErr("new data frame inside a fragmented message")
	errRsv1Cont       = protoErr("RSV1 set on a continuation or control frame")
	errCloseLen1      = protoErr("close frame with a 1-byte payload")
	errCloseCode      = protoErr("close frame with an invalid status code")
	errInvalidUTF8    = &CloseError{Code: CloseInvalidPayload, Reason: "invalid UTF-8 in a text message"}
	errInvalidReason  = &CloseError{Code: CloseInvalidPayload, Reason: "invalid UTF-8 in a close reason"}
	errTooBig         = &CloseError{Code: CloseTooBig, Reason: "message too big"}
	errBadDeflate     = &CloseError{Code: CloseInvalidPayload, Reason: "invalid deflate data"}
)

// ParseFrameHeader parses the frame header at the start of p and checks the
// rules a header breaks on its own: a known opcode; for control frames, FIN
// set and at most 125 bytes; a 64-bit length below 2^63. Whether RSV bits
// and masking are allowed depends on the connection and is left to Conn.
//
// It returns the header and n, the bytes it spans; n == 0 with a nil error
// when p does not yet hold the whole header. Errors are *CloseError with
// code 1002. A non-minimal length encoding is accepted.
func ParseFrameHeader(p []byte) (h FrameHeader, n int, err error) {
	if len(p) < 2 {
		return h, 0, nil
	}
	b0, b1 := p[0], p[1]
	h.Fin = b0&0x80 != 0
	h.Rsv1, h.Rsv2, h.Rsv3 = b0&0x40 != 0, b0&0x20 != 0, b0&0x10 != 0
	h.Op = Opcode(b0 & 0x0f)
	h.Masked = b1&0x80 != 0
	if !h.Op.Known() {
		return h, 0, errReservedOp
	}
	n = 2
	switch l := b1 & 0x7f; l {
	case 126:
		if len(p) < 4 {
			return h, 0, nil
		}
		h.Length = uint64(binary.BigEndian.Uint16(p[2:]))
		n = 4
	case 127:
		if len(p) < 10 {
			return h, 0, nil
		}
		h.Length = binary.BigEndian.Uint64(p[2:])
		if h.Length>>63 != 0 {
			return h, 0, errLengthTopBit
		}
		n = 10
	default:
		h.Length = uint64(l)
	}
	if h.Op.IsControl() {
		if !h.Fin {
			return h, 0, errControlFrag
		}
		if h.Length > MaxControlPayload {
			return h, 0, errControlTooLong
		}
	}
	if h.Masked {
		if len(p) < n+4 {
			return h, 0, nil
		}
		copy(h.Mask[:], p[n:n+4])
		n += 4
	}
	return h, n, nil
}

// AppendFrame appends one frame carrying payload to dst. With a non-nil
// mask the frame is masked with it (what a client sends); the payload itself
// is not modified. rsv1 marks a permessage-deflate compressed message's
// first frame.
func AppendFrame(dst []byte, op Opcode, fin, rsv1 bool, payload []byte, mask *[4]byte) []byte {
	dst = appendHeader(dst, op, fin, rsv1, len(payload), mask)
	start := len(dst)
	dst = append(dst, payload...)
	if mask != nil {
		Mask(dst[start:], *mask, 0)
	}
	return dst
}

// appendHeader appends a frame header for a payload of n bytes.
func appendHeader(dst []byte, op Opcode, fin, rsv1 bool, n int, mask *[4]byte) []byte {
	b0 := byte(op)
	if fin {
		b0 |= 0x80
	}
	if rsv1 {
		b0 |= 0x40
	}
	var m byte
	if mask != nil {
		m = 0x80
	}
	switch {
	case n <= 125:
		dst = append(dst, b0, m|byte(n))
	case n <= 0xffff:
		dst = append(dst, b0, m|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, b0, m|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	if mask != nil {
		dst = append(dst, mask[:]...)
	}
	return dst
}

// headerLen is the length of a header for an n-byte payload.
func headerLen(n int, masked bool) int {
	h := 2
	switch {
	case n > 0xffff:
		h = 10
	case n > 125:
		h = 4
	}
	if masked {
		h += 4
	}
	return h
}
