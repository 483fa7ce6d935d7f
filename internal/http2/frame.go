package http2

import "encoding/binary"

// Frame is one parsed frame. Its payload aliases the buffer given to
// Reader.Next and is valid only as long as that buffer is; padding and the
// HEADERS priority fields are already stripped from it. The accessors below
// read the fields of the frame types they name; Reader.Next has checked the
// lengths they rely on.
type Frame struct {
	Header  FrameHeader
	payload []byte
}

// Payload returns the frame's payload without padding: a DATA frame's data,
// a HEADERS or CONTINUATION frame's field block fragment, the raw payload of
// other types.
func (f *Frame) Payload() []byte { return f.payload }

// NumSettings returns how many settings a SETTINGS frame carries.
func (f *Frame) NumSettings() int { return len(f.payload) / 6 }

// Setting returns the i-th setting of a SETTINGS frame.
func (f *Frame) Setting(i int) (SettingID, uint32) {
	p := f.payload[i*6:]
	return SettingID(binary.BigEndian.Uint16(p)), binary.BigEndian.Uint32(p[2:])
}

// WindowIncrement returns a WINDOW_UPDATE frame's increment (31 bits).
func (f *Frame) WindowIncrement() uint32 {
	return binary.BigEndian.Uint32(f.payload) & (1<<31 - 1)
}

// ErrCode returns the error code of a RST_STREAM or GOAWAY frame.
func (f *Frame) ErrCode() ErrCode {
	if f.Header.Type == FrameGoAway {
		return ErrCode(binary.BigEndian.Uint32(f.payload[4:]))
	}
	return ErrCode(binary.BigEndian.Uint32(f.payload))
}

// LastStreamID returns a GOAWAY frame's last stream identifier.
func (f *Frame) LastStreamID() uint32 {
	return binary.BigEndian.Uint32(f.payload) & (1<<31 - 1)
}

// DebugData returns a GOAWAY frame's opaque debug data.
func (f *Frame) DebugData() []byte { return f.payload[8:] }

// PingData returns a PING frame's 8 bytes of opaque data.
func (f *Frame) PingData() [8]byte { return [8]byte(f.payload) }

// PromisedStreamID returns a PUSH_PROMISE frame's promised stream id; the
// fragment follows it in Payload.
func (f *Frame) PromisedStreamID() uint32 {
	return binary.BigEndian.Uint32(f.payload) & (1<<31 - 1)
}
