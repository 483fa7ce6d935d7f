package http2

// AppendData appends one DATA frame carrying data, which must be no longer
// than the peer's SETTINGS_MAX_FRAME_SIZE and within the flow-control
// windows; the caller splits larger bodies. endStream sets END_STREAM.
func AppendData(dst []byte, streamID uint32, data []byte, endStream bool) []byte {
	var flags Flags
	if endStream {
		flags = FlagEndStream
	}
	dst = appendFrameHeader(dst, len(data), FrameData, flags, streamID)
	return append(dst, data...)
}
