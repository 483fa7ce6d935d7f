package quic

// The errors of malformed frames, shared so that returning one allocates
// nothing; each is a FRAME_ENCODING_ERROR (RFC 9000 section 12.4).
var (
	errFrameTruncated   = frameError("frame truncated")
	errFrameUnknown     = frameError("unknown frame type")
	errFrameAckRange    = frameError("ACK range below packet number 0")
	errFrameOffset      = frameError("offset and length past 2^62-1")
	errFrameStreams     = frameError("stream count above 2^60")
	errFrameEmptyToken  = frameError("empty NEW_TOKEN")
	errFrameConnIDLen   = frameError("NEW_CONNECTION_ID length not in 1..20")
	errFrameRetirePrior = frameError("Retire Prior To above Sequence Number")
)

// frameReader reads a frame's fields, remembering the first failure.
type frameReader struct {
	b   []byte
	p   int
	bad bool
}

func (r *frameReader) varint() uint64 {
	if r.bad {
		return 0
	}
	v, n, err := ParseVarint(r.b[r.p:])
	if err != nil {
		r.bad = true
		return 0
	}
	r.p += n
	return v
}

func (r *frameReader) bytes(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)-r.p) {
		r.bad = true
		return nil
	}
	v := r.b[r.p : r.p+int(n)]
	r.p += int(n)
	return v
}

// ParseFrame parses the frame at the start of b, a packet's plaintext
// payload, and returns it with its length. It does not allocate: the
// frame's byte slices alias b. A malformed or unknown frame yields a
// *TransportError with code FRAME_ENCODING_ERROR. Whether the frame may
// appear in the packet's type is the caller's check (FrameType.AllowedIn).
func ParseFrame(b []byte) (Frame, int, error) {
	var f Frame
	r := frameReader{b: b}
	t := r.varint()
	if r.bad {
		return f, 0, errFrameTruncated
	}
	f.Type = FrameType(t)
	var err error
	switch f.Type {
	case FramePadding:
		n := r.p
		for n < len(b) && b[n] == 0 {
			n++
		}
		f.Count = n
		return f, n, nil
	case FramePing, FrameHandshakeDone:
	case FrameAck, FrameAckECN:
		err = parseAck(&r, &f)
	case FrameResetStream:
		f.StreamID, f.Code, f.FinalSize = r.varint(), r.varint(), r.varint()
	case FrameStopSending:
		f.StreamID, f.Code = r.varint(), r.varint()
	case FrameCrypto:
		f.Offset = r.varint()
		f.Data = r.bytes(r.varint())
		if !r.bad && f.Offset+uint64(len(f.Data)) > MaxVarint {
			err = errFrameOffset
		}
	case FrameNewToken:
		f.Data = r.bytes(r.varint())
		if !r.bad && len(f.Data) == 0 {
			err = errFrameEmptyToken
		}
	case FrameMaxData, FrameDataBlocked:
		f.Limit = r.varint()
	case FrameMaxStreamData, FrameStreamDataBlocked:
		f.StreamID, f.Limit = r.varint(), r.varint()
	case FrameMaxStreamsBidi, FrameMaxStreamsUni, FrameStreamsBlockedBidi, FrameStreamsBlockedUni:
		f.Limit = r.varint()
		if f.Limit > maxStreams {
			err = errFrameStreams
		}
	case FrameNewConnectionID:
		err = parseNewConnectionID(&r, &f)
	case FrameRetireConnectionID:
		f.SequenceNumber = r.varint()
	case FramePathChallenge, FramePathResponse:
		f.Data = r.bytes(pathDataLen)
	case FrameConnectionClose, FrameConnectionCloseApp:
		f.Code = r.varint()
		if f.Type == FrameConnectionClose {
			f.FrameType = r.varint()
		}
		f.Data = r.bytes(r.varint())
	default:
		if t&^7 != uint64(FrameStream) {
			return f, 0, errFrameUnknown
		}
		err = parseStream(&r, &f)
	}
	if r.bad {
		return f, 0, errFrameTruncated
	}
	if err != nil {
		return f, 0, err
	}
	return f, r.p, nil
}

// parseStream reads a STREAM frame's fields after its type, whose low bits
// say which are present.
func parseStream(r *frameReader, f *Frame) error {
	bits := f.Type & 7
	f.Type = FrameStream
	f.Fin = bits&streamFlagFin != 0
	f.HasLength = bits&streamFlagLen != 0
	f.StreamID = r.varint()
	if bits&streamFlagOff != 0 {
		f.Offset = r.varint()
	}
	if f.HasLength {
		f.Data = r.bytes(r.varint())
	} else if !r.bad {
		f.Data = r.b[r.p:]
		r.p = len(r.b)
	}
	if !r.bad && f.Offset+uint64(len(f.Data)) > MaxVarint {
		return errFrameOffset
	}
	return nil
}

// parseAck reads an ACK frame's fields after its type and checks that no
// range reaches below packet number 0.
func parseAck(r *frameReader, f *Frame) error {
	f.LargestAcked, f.AckDelay = r.varint(), r.varint()
	f.AckRangeCount, f.FirstAckRange = r.varint(), r.varint()
	if r.bad {
		return nil
	}
	if f.FirstAckRange > f.LargestAcked {
		return errFrameAckRange
	}
	smallest := f.LargestAcked - f.FirstAckRange
	start := r.p
	if f.AckRangeCount > uint64(len(r.b)-r.p)/2 { // each range takes 2 bytes at least
		r.bad = true
		return nil
	}
	for range f.AckRangeCount {
		gap, length := r.varint(), r.varint()
		if r.bad {
			return nil
		}
		if gap+2 > smallest || length > smallest-gap-2 {
			return errFrameAckRange
		}
		smallest = smallest - gap - 2 - length
	}
	f.ackRanges = r.b[start:r.p]
	if f.Type == FrameAckECN {
		f.ECT0, f.ECT1, f.ECNCE = r.varint(), r.varint(), r.varint()
	}
	return nil
}

// parseNewConnectionID reads a NEW_CONNECTION_ID frame's fields after its
// type.
func parseNewConnectionID(r *frameReader, f *Frame) error {
	f.SequenceNumber, f.RetirePriorTo = r.varint(), r.varint()
	n := r.bytes(1)
	if r.bad {
		return nil
	}
	if n[0] < 1 || n[0] > MaxConnIDLen {
		return errFrameConnIDLen
	}
	f.ConnID = r.bytes(uint64(n[0]))
	f.ResetToken = r.bytes(resetTokenLen)
	if f.RetirePriorTo > f.SequenceNumber {
		return errFrameRetirePrior
	}
	return nil
}
