package http2

// AppendSettingsAck appends an empty SETTINGS frame with ACK set.
func AppendSettingsAck(dst []byte) []byte {
	return appendFrameHeader(dst, 0, FrameSettings, FlagAck, 0)
}

// AppendWindowUpdate appends a WINDOW_UPDATE frame; streamID 0 updates the
// connection window. incr must be between 1 and 2^31-1.
func AppendWindowUpdate(dst []byte, streamID, incr uint32) []byte {
	dst = appendFrameHeader(dst, 4, FrameWindowUpdate, 0, streamID)
	return append(dst, byte(incr>>24)&0x7f, byte(incr>>16), byte(incr>>8), byte(incr))
}

// AppendPing appends a PING frame; ack answers a received PING with its data.
func AppendPing(dst []byte, data [8]byte, ack bool) []byte {
	var flags Flags
	if ack {
		flags = FlagAck
	}
	dst = appendFrameHeader(dst, 8, FramePing, flags, 0)
	return append(dst, data[:]...)
}

// AppendRSTStream appends a RST_STREAM frame resetting streamID with code.
func AppendRSTStream(dst []byte, streamID uint32, code ErrCode) []byte {
	dst = appendFrameHeader(dst, 4, FrameRSTStream, 0, streamID)
	return appendUint32(dst, uint32(code))
}

// AppendGoAway appends a GOAWAY frame: the last stream the sender processed
// or may still process, the code, and opaque debug data.
func AppendGoAway(dst []byte, lastStreamID uint32, code ErrCode, debug []byte) []byte {
	dst = appendFrameHeader(dst, 8+len(debug), FrameGoAway, 0, 0)
	dst = appendUint32(dst, lastStreamID&(1<<31-1))
	dst = appendUint32(dst, uint32(code))
	return append(dst, debug...)
}

// AppendPriority appends a PRIORITY frame. Endpoints of RFC 9113 ignore
// priority signals; the writer exists for tests and peers that want one.
func AppendPriority(dst []byte, streamID, dependsOn uint32, exclusive bool, weight uint8) []byte {
	dst = appendFrameHeader(dst, 5, FramePriority, 0, streamID)
	dep := dependsOn & (1<<31 - 1)
	if exclusive {
		dep |= 1 << 31
	}
	dst = appendUint32(dst, dep)
	return append(dst, weight)
}

func appendUint32(dst []byte, v uint32) []byte {
	return append(dst, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}
