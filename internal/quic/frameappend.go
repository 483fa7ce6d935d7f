package quic

// AppendFrame appends f in its wire form, the inverse of ParseFrame: the
// fields Type names are written, the others ignored. A STREAM frame gets
// the OFF bit when Offset is not 0, and the LEN bit when HasLength; a
// PADDING frame is Count zero bytes (at least one). An ACK frame is
// written from a parsed frame's ranges; a new one comes from
// AppendAckFrame. It panics on a value above MaxVarint, as AppendVarint.
func AppendFrame(b []byte, f *Frame) []byte {
	switch f.Type {
	case FramePadding:
		b = append(b, 0)
		for range f.Count - 1 {
			b = append(b, 0)
		}
		return b
	case FrameStream:
		return AppendStreamFrame(b, f.StreamID, f.Offset, f.Data, f.Fin, f.HasLength)
	case FrameAck, FrameAckECN:
		b = AppendVarint(b, uint64(f.Type))
		b = AppendVarint(b, f.LargestAcked)
		b = AppendVarint(b, f.AckDelay)
		b = AppendVarint(b, f.AckRangeCount)
		b = AppendVarint(b, f.FirstAckRange)
		b = append(b, f.ackRanges...)
		if f.Type == FrameAckECN {
			b = appendVarints(b, f.ECT0, f.ECT1, f.ECNCE)
		}
		return b
	}
	b = AppendVarint(b, uint64(f.Type))
	switch f.Type {
	case FrameResetStream:
		b = appendVarints(b, f.StreamID, f.Code, f.FinalSize)
	case FrameStopSending:
		b = appendVarints(b, f.StreamID, f.Code)
	case FrameCrypto:
		b = AppendVarint(b, f.Offset)
		b = appendWithLength(b, f.Data)
	case FrameNewToken:
		b = appendWithLength(b, f.Data)
	case FrameMaxData, FrameDataBlocked, FrameMaxStreamsBidi, FrameMaxStreamsUni,
		FrameStreamsBlockedBidi, FrameStreamsBlockedUni:
		b = AppendVarint(b, f.Limit)
	case FrameMaxStreamData, FrameStreamDataBlocked:
		b = appendVarints(b, f.StreamID, f.Limit)
	case FrameNewConnectionID:
		b = appendVarints(b, f.SequenceNumber, f.RetirePriorTo)
		b = append(b, byte(len(f.ConnID)))
		b = append(b, f.ConnID...)
		b = append(b, f.ResetToken...)
	case FrameRetireConnectionID:
		b = AppendVarint(b, f.SequenceNumber)
	case FramePathChallenge, FramePathResponse:
		b = append(b, f.Data...)
	case FrameConnectionClose:
		b = appendVarints(b, f.Code, f.FrameType)
		b = appendWithLength(b, f.Data)
	case FrameConnectionCloseApp:
		b = AppendVarint(b, f.Code)
		b = appendWithLength(b, f.Data)
	}
	return b
}

// appendVarints appends each value as a variable-length integer.
func appendVarints(b []byte, vs ...uint64) []byte {
	for _, v := range vs {
		b = AppendVarint(b, v)
	}
	return b
}

// appendWithLength appends data prefixed by its length.
func appendWithLength(b, data []byte) []byte {
	b = AppendVarint(b, uint64(len(data)))
	return append(b, data...)
}

// AppendStreamFrame appends a STREAM frame carrying data at offset of
// stream id, ending the stream if fin. Without withLength the frame has
// no Length field and must be the packet's last.
func AppendStreamFrame(b []byte, id, offset uint64, data []byte, fin, withLength bool) []byte {
	t := FrameStream
	if offset != 0 {
		t |= streamFlagOff
	}
	if withLength {
		t |= streamFlagLen
	}
	if fin {
		t |= streamFlagFin
	}
	b = append(b, byte(t))
	b = AppendVarint(b, id)
	if offset != 0 {
		b = AppendVarint(b, offset)
	}
	if withLength {
		b = AppendVarint(b, uint64(len(data)))
	}
	return append(b, data...)
}

// AppendCryptoFrame appends a CRYPTO frame carrying data at offset of the
// encryption level's crypto stream.
func AppendCryptoFrame(b []byte, offset uint64, data []byte) []byte {
	b = append(b, byte(FrameCrypto))
	b = AppendVarint(b, offset)
	return appendWithLength(b, data)
}

// ECNCounts are the counts of an ACK frame of type 0x03 (RFC 9000 section
// 19.3.2).
type ECNCounts struct {
	ECT0, ECT1, CE uint64
}

// AppendAckFrame appends an ACK frame acknowledging the packet numbers in
// s, which must not be empty, with ackDelay already scaled down by the
// ack_delay_exponent; with ecn it is of type 0x03 and carries the counts.
// Ranges beyond maxRanges (the smallest ones) are left out to bound the
// frame's size; 0 means all.
func AppendAckFrame(b []byte, s *RangeSet, ackDelay uint64, ecn *ECNCounts, maxRanges int) []byte {
	n := s.Len()
	if maxRanges > 0 && n > maxRanges {
		n = maxRanges
	}
	t := FrameAck
	if ecn != nil {
		t = FrameAckECN
	}
	top := s.At(0)
	b = append(b, byte(t))
	b = appendVarints(b, top.Hi, ackDelay, uint64(n-1), top.Hi-top.Lo)
	prev := top
	for i := 1; i < n; i++ {
		r := s.At(i)
		b = appendVarints(b, prev.Lo-r.Hi-2, r.Hi-r.Lo)
		prev = r
	}
	if ecn != nil {
		b = appendVarints(b, ecn.ECT0, ecn.ECT1, ecn.CE)
	}
	return b
}
