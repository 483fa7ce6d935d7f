package http3

// StreamKind says which stream a FrameReader reads, and so which frames
// may arrive on it (RFC 9114 section 7.2, table 1).
type StreamKind uint8

// The streams that carry frames.
const (
	// KindRequest is a bidirectional request stream: DATA, HEADERS and,
	// towards a client, PUSH_PROMISE.
	KindRequest StreamKind = iota
	// KindControl is the peer's control stream: SETTINGS first and once,
	// then CANCEL_PUSH, GOAWAY and, towards a server, MAX_PUSH_ID.
	KindControl
	// KindPush is a push stream after its push ID: DATA and HEADERS.
	KindPush
)

// DefaultMaxFrameSize is the largest payload a zero FrameReader buffers for
// a frame other than DATA: 64 KiB.
const DefaultMaxFrameSize = 64 << 10

// Frame is one frame, or for DATA one piece of one, read by a FrameReader.
// Payload aliases the bytes given to Next or the reader's buffer: it is
// valid until the next call to Next.
type Frame struct {
	Type FrameType
	// Length is the payload length the frame's header declared.
	Length uint64
	// Payload is the field section of HEADERS and of PUSH_PROMISE (after
	// its push ID), the parameters of SETTINGS (see ParseSettings), and
	// the piece of a DATA frame's payload that arrived; empty otherwise.
	Payload []byte
	// ID is the push ID of CANCEL_PUSH, PUSH_PROMISE and MAX_PUSH_ID, and
	// the stream or push ID of GOAWAY.
	ID uint64
	// End is true for every frame but a DATA piece that more of the same
	// frame follows.
	End bool
}

// FrameReader reads the frames of one stream from bytes as they arrive, in
// pieces of any size. It enforces the rules RFC 9114 section 7 states for
// each frame on its own: which frames the stream may carry, SETTINGS first
// and once on a control stream, the HTTP/2 frame types HTTP/3 forbids
// (H3_FRAME_UNEXPECTED), payloads that hold exactly their fields
// (H3_FRAME_ERROR), a valid SETTINGS payload (H3_SETTINGS_ERROR), and a
// bound on what it buffers (H3_EXCESSIVE_LOAD). Unknown and reserved frame
// types are skipped (RFC 9114 section 9). Rules that need the state of a
// request (HEADERS before DATA, trailers last) belong to the caller.
//
// DATA payloads are never buffered: each piece is handed out as it
// arrives. Other frames are handed out whole, as a view of the input when
// it holds the whole payload, else copied into a buffer that is reused, so
// a FrameReader does not allocate once its buffer has grown. Every error is
// a ConnError; after one the reader must not be used.
type FrameReader struct {
	// Kind is the stream read; the zero value is a request stream.
	Kind StreamKind
	// Client is true when this endpoint is the client, so the peer is a
	// server: PUSH_PROMISE may arrive, MAX_PUSH_ID may not.
	Client bool
	// MaxFrameSize bounds the payload of a frame other than DATA (the
	// bytes the reader may have to buffer). Zero means
	// DefaultMaxFrameSize.
	MaxFrameSize int

	hdr     [16]byte // a frame header split across calls
	hdrLen  int
	inFrame bool
	typ     FrameType
	length  uint64
	left    uint64 // payload bytes still to come
	skip    bool   // an unknown frame: its payload is discarded
	buf     []byte // a non-DATA payload split across calls
	started bool   // a control stream's first frame has arrived
}

// Next consumes bytes from p and returns the next frame, or DATA piece,
// they complete. n is the bytes of p consumed; ok is false when p was
// consumed without completing anything (the reader keeps what it needs), and
// the caller calls again with the next bytes to arrive. A caller loops:
//
//	for len(p) > 0 {
//		f, n, ok, err := r.Next(p)
//		if err != nil { ... close the connection with CodeOf(err) }
//		p = p[n:]
//		if !ok { break }
//		... use f
//	}
func (r *FrameReader) Next(p []byte) (f Frame, n int, ok bool, err error) {
	for {
		if !r.inFrame {
			used, done, err := r.readHeader(p)
			n += used
			p = p[used:]
			if err != nil || !done {
				return Frame{}, n, false, err
			}
			if r.typ == FrameData && r.left == 0 {
				r.inFrame = false
				return Frame{Type: FrameData, End: true}, n, true, nil
			}
		}
		if r.skip {
			k := min(r.left, uint64(len(p)))
			n += int(k)
			p = p[k:]
			r.left -= k
			if r.left > 0 {
				return Frame{}, n, false, nil
			}
			r.inFrame = false
			continue
		}
		if r.typ == FrameData {
			if len(p) == 0 {
				return Frame{}, n, false, nil
			}
			k := min(r.left, uint64(len(p)))
			r.left -= k
			r.inFrame = r.left > 0
			return Frame{Type: FrameData, Length: r.length, Payload: p[:k], End: r.left == 0}, n + int(k), true, nil
		}
		var payload []byte
		switch {
		case len(r.buf) == 0 && uint64(len(p)) >= r.left:
			payload = p[:r.left]
			n += int(r.left)
		default:
			k := min(r.left, uint64(len(p)))
			r.buf = append(r.buf, p[:k]...)
			n += int(k)
			r.left -= k
			if r.left > 0 {
				return Frame{}, n, false, nil
			}
			payload = r.buf
			r.buf = r.buf[:0] // the view stays valid until the next append
		}
		r.inFrame = false
		f, err = r.parsePayload(payload)
		return f, n, err == nil, err
	}
}

// readHeader consumes a frame header from p, with any part of it kept from
// earlier calls, and checks the frame may arrive here.
func (r *FrameReader) readHeader(p []byte) (used int, done bool, err error) {
	k := copy(r.hdr[r.hdrLen:], p)
	h := r.hdr[:r.hdrLen+k]
	t, n1 := parseVarint(h)
	var length uint64
	n2 := 0
	if n1 > 0 {
		length, n2 = parseVarint(h[n1:])
	}
	if n1 == 0 || n2 == 0 {
		r.hdrLen += k
		return k, false, nil
	}
	used = n1 + n2 - r.hdrLen
	r.hdrLen = 0
	r.inFrame, r.typ, r.length, r.left, r.skip = true, FrameType(t), length, length, false
	return used, true, r.checkHeader()
}

func (r *FrameReader) checkHeader() error {
	t := r.typ
	if r.Kind == KindControl {
		if !r.started && t != FrameSettings {
			return connErr(ErrCodeMissingSettings, "control stream does not start with SETTINGS")
		}
		if r.started && t == FrameSettings {
			return connErr(ErrCodeFrameUnexpected, "second SETTINGS frame")
		}
		r.started = true
	}
	switch t {
	case FrameData, FrameHeaders:
		if r.Kind == KindControl {
			return connErr(ErrCodeFrameUnexpected, t.String()+" on the control stream")
		}
	case FramePushPromise:
		if r.Kind != KindRequest || !r.Client {
			return connErr(ErrCodeFrameUnexpected, "PUSH_PROMISE where only a server's request stream may carry it")
		}
	case FrameCancelPush, FrameSettings, FrameGoAway, FrameMaxPushID:
		if r.Kind != KindControl {
			return connErr(ErrCodeFrameUnexpected, t.String()+" outside the control stream")
		}
		if t == FrameMaxPushID && r.Client {
			return connErr(ErrCodeFrameUnexpected, "MAX_PUSH_ID from a server")
		}
	default:
		if t.isHTTP2Only() {
			return connErr(ErrCodeFrameUnexpected, "HTTP/2 frame type "+t.String())
		}
		r.skip = true // unknown or reserved: ignored (RFC 9114 section 9)
		return nil
	}
	switch t {
	case FrameData:
		return nil
	case FrameCancelPush, FrameGoAway, FrameMaxPushID:
		// One variable-length integer, so 1 to 8 bytes.
		if r.length == 0 || r.length > 8 {
			return connErr(ErrCodeFrame, t.String()+" payload is not one integer")
		}
		return nil
	}
	max := r.MaxFrameSize
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	if r.length > uint64(max) {
		return connErr(ErrCodeExcessiveLoad, t.String()+" frame larger than the limit")
	}
	return nil
}

// parsePayload checks a whole non-DATA payload holds exactly its fields.
func (r *FrameReader) parsePayload(p []byte) (Frame, error) {
	f := Frame{Type: r.typ, Length: r.length, End: true}
	switch r.typ {
	case FrameHeaders:
		f.Payload = p
	case FrameSettings:
		s := DefaultSettings()
		if err := ParseSettings(p, &s); err != nil {
			return Frame{}, err
		}
		f.Payload = p
	case FramePushPromise:
		id, n := parseVarint(p)
		if n == 0 {
			return Frame{}, connErr(ErrCodeFrame, "PUSH_PROMISE without a whole push ID")
		}
		f.ID, f.Payload = id, p[n:]
	case FrameCancelPush, FrameGoAway, FrameMaxPushID:
		id, n := parseVarint(p)
		if n != len(p) {
			return Frame{}, connErr(ErrCodeFrame, r.typ.String()+" payload is not exactly one integer")
		}
		f.ID = id
	}
	return f, nil
}

// InFrame reports whether the bytes read so far end inside a frame. A
// stream that ends cleanly there ends with a truncated frame, which RFC
// 9114 section 7.1 makes a connection error; see End.
func (r *FrameReader) InFrame() bool { return r.inFrame || r.hdrLen > 0 }

// End checks the stream may end here, at its FIN: it returns an
// H3_FRAME_ERROR ConnError if a frame is truncated. The caller adds the
// rules of the stream's kind (a control stream must never end, RFC 9114
// section 6.2.1).
func (r *FrameReader) End() error {
	if r.InFrame() {
		return connErr(ErrCodeFrame, "stream ended inside a frame")
	}
	return nil
}
