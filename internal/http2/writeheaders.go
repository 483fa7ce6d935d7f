package http2

// AppendHeaders appends a header block as one HEADERS frame followed by as
// many CONTINUATION frames as needed, no fragment longer than maxFrame (the
// peer's SETTINGS_MAX_FRAME_SIZE; zero means DefaultMaxFrameSize).
// endStream sets END_STREAM on the HEADERS frame. It writes no padding and
// no priority fields.
func AppendHeaders(dst []byte, streamID uint32, block []byte, endStream bool, maxFrame uint32) []byte {
	max := int(maxFrame)
	if max == 0 {
		max = DefaultMaxFrameSize
	}
	var flags Flags
	if endStream {
		flags |= FlagEndStream
	}
	frag := block
	if len(frag) > max {
		frag = frag[:max]
	}
	block = block[len(frag):]
	if len(block) == 0 {
		flags |= FlagEndHeaders
	}
	dst = appendFrameHeader(dst, len(frag), FrameHeaders, flags, streamID)
	dst = append(dst, frag...)
	for len(block) > 0 {
		frag = block
		if len(frag) > max {
			frag = frag[:max]
		}
		block = block[len(frag):]
		flags = 0
		if len(block) == 0 {
			flags = FlagEndHeaders
		}
		dst = appendFrameHeader(dst, len(frag), FrameContinuation, flags, streamID)
		dst = append(dst, frag...)
	}
	return dst
}
