package websocket

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"unicode/utf8"
)

// Errors AppendMessage returns.
var (
	// ErrCloseSent: this side already sent its close; no data may follow.
	ErrCloseSent = errors.New("websocket: close already sent")
	// ErrNotData: AppendMessage takes OpText or OpBinary only.
	ErrNotData = errors.New("websocket: message opcode must be text or binary")
)

// AppendMessage appends a whole message in one frame to dst: compressed
// (RSV1) when permessage-deflate is on, with this side's own compressor
// under context takeover or a pooled one without it, and masked with a
// fresh key when c is a client. The text of an OpText message is not
// checked; it must be valid UTF-8.
func (c *Conn) AppendMessage(dst []byte, op Opcode, payload []byte) ([]byte, error) {
	if op != OpText && op != OpBinary {
		return dst, ErrNotData
	}
	if c.closeSent {
		return dst, ErrCloseSent
	}
	var key [4]byte
	var mask *[4]byte
	if c.client {
		binary.LittleEndian.PutUint32(key[:], rand.Uint32())
		mask = &key
	}
	z := c.z
	if z == nil {
		return AppendFrame(dst, op, true, false, payload, mask), nil
	}
	if z.sendNoCtx {
		comp := getCompressor(int(z.sendBits))
		dst = appendCompressed(dst, op, payload, comp, mask)
		putCompressor(comp, int(z.sendBits))
		return dst, nil
	}
	if z.comp == nil {
		z.comp = newCompressor(int(z.sendBits))
	}
	return appendCompressed(dst, op, payload, z.comp, mask), nil
}

// SharedCompression reports whether frames from AppendCompressedFrame may be
// written to c: c is a server whose deflate runs without context takeover on
// its side and with a 15-bit window. (A frame compressed elsewhere would
// otherwise break the window its own compressor shares with the peer.)
func (c *Conn) SharedCompression() bool {
	return c.z != nil && !c.client && c.z.sendNoCtx && c.z.sendBits == 15
}

// AppendPing appends a ping carrying payload, cut to 125 bytes.
func (c *Conn) AppendPing(dst, payload []byte) []byte {
	return c.appendControl(dst, OpPing, payload[:min(len(payload), MaxControlPayload)])
}

// AppendPong appends an unsolicited pong (a heartbeat; pings are answered
// by Feed) carrying payload, cut to 125 bytes.
func (c *Conn) AppendPong(dst, payload []byte) []byte {
	return c.appendControl(dst, OpPong, payload[:min(len(payload), MaxControlPayload)])
}

// AppendClose starts the closing handshake: it appends a close frame with
// code and reason (cut to 123 bytes on a UTF-8 boundary) unless this side
// already sent one. A code ValidCloseCode rejects (0, CloseNoStatus) sends a
// close without a status. After it, AppendMessage fails and Feed sends no
// pongs; the caller closes the connection once the peer's close arrives
// (Event EventClose) or after a timeout.
func (c *Conn) AppendClose(dst []byte, code int, reason string) []byte {
	if c.closeSent {
		return dst
	}
	c.closeSent = true
	return c.appendClosePayload(dst, code, reason)
}

func (c *Conn) appendClosePayload(dst []byte, code int, reason string) []byte {
	var b [MaxControlPayload]byte
	p := b[:0]
	if ValidCloseCode(code) {
		p = binary.BigEndian.AppendUint16(p, uint16(code))
		if len(reason) > MaxControlPayload-2 {
			reason = reason[:MaxControlPayload-2]
			for len(reason) > 0 && !utf8.ValidString(reason) {
				reason = reason[:len(reason)-1]
			}
		}
		p = append(p, reason...)
	}
	return c.appendControl(dst, OpClose, p)
}

func (c *Conn) appendControl(dst []byte, op Opcode, payload []byte) []byte {
	if !c.client {
		return AppendFrame(dst, op, true, false, payload, nil)
	}
	var key [4]byte
	binary.LittleEndian.PutUint32(key[:], rand.Uint32())
	return AppendFrame(dst, op, true, false, payload, &key)
}
