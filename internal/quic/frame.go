package quic

// FrameType is a frame's type (RFC 9000 section 12.4, Table 3). A parsed
// STREAM frame reports FrameStream whatever its OFF, LEN and FIN bits.
type FrameType uint64

// The frame types of QUIC version 1.
const (
	FramePadding            FrameType = 0x00
	FramePing               FrameType = 0x01
	FrameAck                FrameType = 0x02
	FrameAckECN             FrameType = 0x03
	FrameResetStream        FrameType = 0x04
	FrameStopSending        FrameType = 0x05
	FrameCrypto             FrameType = 0x06
	FrameNewToken           FrameType = 0x07
	FrameStream             FrameType = 0x08 // to 0x0f: the low 3 bits are OFF, LEN, FIN
	FrameMaxData            FrameType = 0x10
	FrameMaxStreamData      FrameType = 0x11
	FrameMaxStreamsBidi     FrameType = 0x12
	FrameMaxStreamsUni      FrameType = 0x13
	FrameDataBlocked        FrameType = 0x14
	FrameStreamDataBlocked  FrameType = 0x15
	FrameStreamsBlockedBidi FrameType = 0x16
	FrameStreamsBlockedUni  FrameType = 0x17
	FrameNewConnectionID    FrameType = 0x18
	FrameRetireConnectionID FrameType = 0x19
	FramePathChallenge      FrameType = 0x1a
	FramePathResponse       FrameType = 0x1b
	FrameConnectionClose    FrameType = 0x1c
	FrameConnectionCloseApp FrameType = 0x1d
	FrameHandshakeDone      FrameType = 0x1e
	streamFlagOff           FrameType = 0x04
	streamFlagLen           FrameType = 0x02
	streamFlagFin           FrameType = 0x01
	resetTokenLen                     = 16
	pathDataLen                       = 8
	maxStreams                        = 1 << 60
)

// Frame is one parsed frame, a value holding every frame type's fields;
// which are set depends on Type, as each field's comment says. Its byte
// slices are views into the packet's plaintext.
type Frame struct {
	Type FrameType

	// StreamID: STREAM, RESET_STREAM, STOP_SENDING, MAX_STREAM_DATA,
	// STREAM_DATA_BLOCKED.
	StreamID uint64
	// Offset of Data in its stream: STREAM, CRYPTO.
	Offset uint64
	// Data: STREAM and CRYPTO data, NEW_TOKEN's token, PATH_CHALLENGE's
	// and PATH_RESPONSE's 8 bytes, CONNECTION_CLOSE's reason phrase.
	Data []byte
	// Fin: a STREAM frame ending its stream.
	Fin bool
	// HasLength: a STREAM frame carrying its Length field; one without
	// runs to the end of the packet.
	HasLength bool
	// Count: the number of bytes of a run of PADDING, parsed as one frame.
	Count int

	// Code: the application error code of RESET_STREAM and STOP_SENDING,
	// the error code of CONNECTION_CLOSE.
	Code uint64
	// FinalSize: RESET_STREAM.
	FinalSize uint64
	// Limit: the maximum of MAX_DATA, MAX_STREAM_DATA and MAX_STREAMS, the
	// limit reached of DATA_BLOCKED, STREAM_DATA_BLOCKED and
	// STREAMS_BLOCKED.
	Limit uint64
	// FrameType: the type of the frame that caused a CONNECTION_CLOSE of
	// type 0x1c, or 0.
	FrameType uint64

	// SequenceNumber: NEW_CONNECTION_ID, RETIRE_CONNECTION_ID.
	SequenceNumber uint64
	// RetirePriorTo, ConnID and ResetToken (16 bytes): NEW_CONNECTION_ID.
	RetirePriorTo uint64
	ConnID        []byte
	ResetToken    []byte

	// LargestAcked, AckDelay (in units of 2^ack_delay_exponent
	// microseconds) and the ranges read with AckRanges: ACK.
	LargestAcked uint64
	AckDelay     uint64
	// FirstAckRange is the number of packets below LargestAcked acked
	// with it; AckRangeCount the number of further ranges.
	FirstAckRange uint64
	AckRangeCount uint64
	// ECT0, ECT1 and ECNCE: the ECN counts of an ACK of type 0x03.
	ECT0, ECT1, ECNCE uint64

	ackRanges []byte // the Gap and ACK Range Length pairs, validated
}

// AckRanges returns a reader of an ACK frame's ranges, largest first.
func (f *Frame) AckRanges() AckRangeReader {
	return AckRangeReader{
		next: f.LargestAcked - f.FirstAckRange, hi: f.LargestAcked,
		first: true, rest: f.ackRanges,
	}
}

// AckRangeReader walks an ACK frame's ranges, largest first, without
// allocating. The parser has already checked them.
type AckRangeReader struct {
	hi, next uint64
	first    bool
	rest     []byte
}

// Next returns the next range's smallest and largest packet numbers, both
// acknowledged, or ok false after the last.
func (r *AckRangeReader) Next() (smallest, largest uint64, ok bool) {
	if r.first {
		r.first = false
		return r.next, r.hi, true
	}
	if len(r.rest) == 0 {
		return 0, 0, false
	}
	gap, n, _ := ParseVarint(r.rest)
	r.rest = r.rest[n:]
	length, n, _ := ParseVarint(r.rest)
	r.rest = r.rest[n:]
	largest = r.next - gap - 2
	smallest = largest - length
	r.next = smallest
	return smallest, largest, true
}

// AllowedIn reports whether a frame of type t may appear in a packet of
// type p (RFC 9000 section 12.4, Table 3); a frame that may not is a
// PROTOCOL_VIOLATION.
func (t FrameType) AllowedIn(p PacketType) bool {
	switch t {
	case FramePadding, FramePing, FrameConnectionClose:
		return true
	case FrameAck, FrameAckECN, FrameCrypto:
		return p != Packet0RTT
	case FrameNewToken, FramePathResponse, FrameHandshakeDone:
		return p == Packet1RTT
	}
	return p == Packet0RTT || p == Packet1RTT
}

// AckEliciting reports whether a frame of type t makes its packet
// ack-eliciting (RFC 9002 section 2): all but ACK, PADDING and
// CONNECTION_CLOSE.
func (t FrameType) AckEliciting() bool {
	switch t {
	case FramePadding, FrameAck, FrameAckECN, FrameConnectionClose, FrameConnectionCloseApp:
		return false
	}
	return true
}
