package http2

// Reader parses frames in place from a byte slice and enforces the rules
// RFC 9113 section 4 and 6 state for each frame on its own: the payload
// size limit, the length each type must have, which types need a stream and
// which must not have one, padding, and that a header block's CONTINUATION
// frames follow it with nothing in between. Rules that need stream state
// belong to the connection engines. A Reader never allocates.
//
// The zero Reader accepts payloads up to DefaultMaxFrameSize.
type Reader struct {
	// MaxFrameSize is the largest payload accepted: the
	// SETTINGS_MAX_FRAME_SIZE this endpoint advertised. Zero means
	// DefaultMaxFrameSize.
	MaxFrameSize uint32

	// contStream is the stream whose header block awaits CONTINUATION, 0
	// when no block is open.
	contStream uint32
}

// InHeaderBlock reports whether a header block is open: the last HEADERS or
// PUSH_PROMISE frame lacked END_HEADERS and only CONTINUATION may follow.
func (r *Reader) InHeaderBlock() bool { return r.contStream != 0 }

// Next parses the frame at the start of buf.
//
// With a whole frame in buf it returns the frame and n, the bytes it spans.
// With only part of a frame it returns n == 0 and a nil error: the caller
// reads more and calls again with the same bytes at the start (a frame
// header announcing a payload above MaxFrameSize is rejected as soon as the
// header is in, without waiting for the payload).
//
// A StreamError comes with n > 0: the frame is consumed, the stream must be
// reset, the connection goes on. A ConnError ends the connection; n is then
// meaningless. Frames of unknown types are returned for the caller to
// ignore (RFC 9113 section 5.5).
func (r *Reader) Next(buf []byte) (f Frame, n int, err error) {
	if len(buf) < FrameHeaderLen {
		return Frame{}, 0, nil
	}
	h := parseFrameHeader(buf)
	max := r.MaxFrameSize
	if max == 0 {
		max = DefaultMaxFrameSize
	}
	if h.Length > max {
		// RFC 9113 section 4.2 lets a receiver treat any oversized frame as
		// a connection error; the frames that alter connection state must be.
		return Frame{}, 0, connErr(ErrCodeFrameSize, "frame larger than SETTINGS_MAX_FRAME_SIZE")
	}
	n = FrameHeaderLen + int(h.Length)
	if len(buf) < n {
		return Frame{}, 0, nil
	}
	f = Frame{Header: h, payload: buf[FrameHeaderLen:n]}
	if r.contStream != 0 {
		if h.Type != FrameContinuation || h.StreamID != r.contStream {
			return f, n, connErr(ErrCodeProtocol, "header block interrupted before END_HEADERS")
		}
	}
	switch h.Type {
	case FrameData:
		err = r.checkData(&f)
	case FrameHeaders:
		err = r.checkHeaders(&f)
	case FramePriority:
		err = checkPriority(&f)
	case FrameRSTStream:
		err = checkRSTStream(&f)
	case FrameSettings:
		err = checkSettings(&f)
	case FramePushPromise:
		err = r.checkPushPromise(&f)
	case FramePing:
		err = checkPing(&f)
	case FrameGoAway:
		err = checkGoAway(&f)
	case FrameWindowUpdate:
		err = checkWindowUpdate(&f)
	case FrameContinuation:
		err = r.checkContinuation(&f)
	}
	return f, n, err
}

// stripPadding removes the Pad Length field and the padding of a PADDED
// frame (RFC 9113 section 6.1): padding as long as the payload or longer is
// a connection PROTOCOL_ERROR.
func stripPadding(f *Frame) error {
	if !f.Header.Flags.Has(FlagPadded) {
		return nil
	}
	if len(f.payload) < 1 {
		return connErr(ErrCodeFrameSize, "padded frame without a pad length")
	}
	pad := int(f.payload[0])
	if pad >= len(f.payload) {
		return connErr(ErrCodeProtocol, "padding longer than the payload")
	}
	f.payload = f.payload[1 : len(f.payload)-pad]
	return nil
}

func (r *Reader) checkData(f *Frame) error {
	if f.Header.StreamID == 0 {
		return connErr(ErrCodeProtocol, "DATA on stream 0")
	}
	return stripPadding(f)
}

func (r *Reader) checkHeaders(f *Frame) error {
	if f.Header.StreamID == 0 {
		return connErr(ErrCodeProtocol, "HEADERS on stream 0")
	}
	if err := stripPadding(f); err != nil {
		return err
	}
	if !f.Header.Flags.Has(FlagEndHeaders) {
		r.contStream = f.Header.StreamID
	}
	if f.Header.Flags.Has(FlagPriority) {
		if len(f.payload) < 5 {
			return connErr(ErrCodeFrameSize, "HEADERS too short for its priority fields")
		}
		dep := (uint32(f.payload[0])<<24 | uint32(f.payload[1])<<16 |
			uint32(f.payload[2])<<8 | uint32(f.payload[3])) & (1<<31 - 1)
		f.payload = f.payload[5:]
		if dep == f.Header.StreamID {
			// The block must still be decoded by the caller to keep HPACK
			// in sync; the stream error is reported with the frame.
			return streamErr(f.Header.StreamID, ErrCodeProtocol, "stream depends on itself")
		}
	}
	return nil
}

func checkPriority(f *Frame) error {
	if f.Header.StreamID == 0 {
		return connErr(ErrCodeProtocol, "PRIORITY on stream 0")
	}
	if len(f.payload) != 5 {
		return streamErr(f.Header.StreamID, ErrCodeFrameSize, "PRIORITY length is not 5")
	}
	dep := (uint32(f.payload[0])<<24 | uint32(f.payload[1])<<16 |
		uint32(f.payload[2])<<8 | uint32(f.payload[3])) & (1<<31 - 1)
	if dep == f.Header.StreamID {
		return streamErr(f.Header.StreamID, ErrCodeProtocol, "stream depends on itself")
	}
	return nil
}

func checkRSTStream(f *Frame) error {
	if f.Header.StreamID == 0 {
		return connErr(ErrCodeProtocol, "RST_STREAM on stream 0")
	}
	if len(f.payload) != 4 {
		return connErr(ErrCodeFrameSize, "RST_STREAM length is not 4")
	}
	return nil
}

func checkSettings(f *Frame) error {
	if f.Header.StreamID != 0 {
		return connErr(ErrCodeProtocol, "SETTINGS on a stream")
	}
	if f.Header.Flags.Has(FlagAck) {
		if len(f.payload) != 0 {
			return connErr(ErrCodeFrameSize, "SETTINGS ACK with a payload")
		}
		return nil
	}
	if len(f.payload)%6 != 0 {
		return connErr(ErrCodeFrameSize, "SETTINGS length is not a multiple of 6")
	}
	return nil
}

func (r *Reader) checkPushPromise(f *Frame) error {
	if f.Header.StreamID == 0 {
		return connErr(ErrCodeProtocol, "PUSH_PROMISE on stream 0")
	}
	if err := stripPadding(f); err != nil {
		return err
	}
	if len(f.payload) < 4 {
		return connErr(ErrCodeFrameSize, "PUSH_PROMISE too short")
	}
	if !f.Header.Flags.Has(FlagEndHeaders) {
		r.contStream = f.Header.StreamID
	}
	return nil
}

func checkPing(f *Frame) error {
	if f.Header.StreamID != 0 {
		return connErr(ErrCodeProtocol, "PING on a stream")
	}
	if len(f.payload) != 8 {
		return connErr(ErrCodeFrameSize, "PING length is not 8")
	}
	return nil
}

func checkGoAway(f *Frame) error {
	if f.Header.StreamID != 0 {
		return connErr(ErrCodeProtocol, "GOAWAY on a stream")
	}
	if len(f.payload) < 8 {
		return connErr(ErrCodeFrameSize, "GOAWAY shorter than 8")
	}
	return nil
}

func checkWindowUpdate(f *Frame) error {
	if len(f.payload) != 4 {
		return connErr(ErrCodeFrameSize, "WINDOW_UPDATE length is not 4")
	}
	if f.WindowIncrement() == 0 {
		if f.Header.StreamID == 0 {
			return connErr(ErrCodeProtocol, "WINDOW_UPDATE with increment 0")
		}
		return streamErr(f.Header.StreamID, ErrCodeProtocol, "WINDOW_UPDATE with increment 0")
	}
	return nil
}

func (r *Reader) checkContinuation(f *Frame) error {
	if f.Header.StreamID == 0 {
		return connErr(ErrCodeProtocol, "CONTINUATION on stream 0")
	}
	if r.contStream == 0 {
		return connErr(ErrCodeProtocol, "CONTINUATION without an open header block")
	}
	if f.Header.Flags.Has(FlagEndHeaders) {
		r.contStream = 0
	}
	return nil
}
