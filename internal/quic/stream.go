package quic

// stream is one stream's state both ways (RFC 9000 sections 2 to 4): the
// send half with the peer's MAX_STREAM_DATA, the receive half with the
// window this end gives, and the resets and stops of either side.
type stream struct {
	id uint64

	send      sendBuf
	sendMax   uint64 // the peer's MAX_STREAM_DATA
	blockedAt uint64

	recv    recvBuf
	window  uint64
	recvMax uint64 // the MAX_STREAM_DATA given

	resetCode  uint64
	resetFinal uint64
	stopCode   uint64
	peerCode   uint64
	peerStop   uint64

	// The flags, together so that the struct holds no padding between.
	local       bool // opened by this end
	hasSend     bool
	hasRecv     bool
	blockedOwed bool
	wantWrite   bool // a Write was cut short: say when it may go on
	maxDataOwed bool
	readQueued  bool // an EventStreamReadable is pending
	finRead     bool // Read has returned the FIN
	resetOwed   bool // RESET_STREAM to send
	resetSent   bool
	resetAcked  bool
	stopOwed    bool // STOP_SENDING to send
	stopped     bool // this end sent STOP_SENDING: data is dropped
	peerReset   bool
	resetRead   bool // the application has seen the peer's reset
	peerStopped bool
	queued      bool // in the send queue
}

// StreamError is the error of a stream the peer reset (RESET_STREAM, on a
// Read) or stopped (STOP_SENDING, on a Write), with its application code.
type StreamError struct {
	StreamID uint64
	Code     uint64
	Stopped  bool // STOP_SENDING rather than RESET_STREAM
}

// Error describes the reset.
func (e *StreamError) Error() string {
	if e.Stopped {
		return "quic: stream " + itoa(e.StreamID) + " stopped by the peer, code " + itoa(e.Code)
	}
	return "quic: stream " + itoa(e.StreamID) + " reset by the peer, code " + itoa(e.Code)
}

// IsUniStream reports whether a stream ID is unidirectional.
func IsUniStream(id uint64) bool { return id&2 != 0 }

// IsClientStream reports whether a stream ID is the client's.
func IsClientStream(id uint64) bool { return id&1 == 0 }

// sendWork reports whether the stream has frames to send when connCredit
// new bytes may go.
func (s *stream) sendWork(connCredit uint64) bool {
	if s.resetOwed || s.stopOwed || s.maxDataOwed || s.blockedOwed {
		return true
	}
	if !s.hasSend || s.resetSent {
		return false
	}
	return s.send.pending(min(s.sendMax, s.send.next+connCredit))
}

// ownWork is sendWork without the connection's limit: whether the stream
// stays queued.
func (s *stream) ownWork() bool { return s.sendWork(1 << 62) }

// onData takes a STREAM frame's data (RFC 9000 section 4.5 for the final
// size), returning how much the highest offset grew for connection flow
// control.
func (s *stream) onData(off uint64, data []byte, fin bool) (uint64, error) {
	end := off + uint64(len(data))
	if end > s.recvMax {
		return 0, &TransportError{Code: FlowControlError, Reason: "data past MAX_STREAM_DATA"}
	}
	r := &s.recv
	if r.hasFinal && (end > r.final || (fin && end != r.final)) {
		return 0, &TransportError{Code: FinalSizeError, Reason: "STREAM past or changing the final size"}
	}
	if fin && end < r.highest() {
		return 0, &TransportError{Code: FinalSizeError, Reason: "final size below data received"}
	}
	grow := uint64(0)
	if h := r.highest(); end > h {
		grow = end - h
	}
	if fin {
		r.final, r.hasFinal = end, true
	}
	if s.peerReset || s.stopped {
		if end > r.highest() {
			r.skip(end) // count it, keep nothing
		}
		return grow, nil
	}
	return grow, r.push(off, data)
}

// onReset takes a RESET_STREAM frame, returning the connection flow
// control bytes it accounts for and the unread ones it frees.
func (s *stream) onReset(code, final uint64) (grow, freed uint64, err error) {
	r := &s.recv
	if (r.hasFinal && final != r.final) || final < r.highest() {
		return 0, 0, &TransportError{Code: FinalSizeError, Reason: "RESET_STREAM final size differs"}
	}
	if final > s.recvMax {
		return 0, 0, &TransportError{Code: FlowControlError, Reason: "RESET_STREAM past MAX_STREAM_DATA"}
	}
	if s.peerReset {
		return 0, 0, nil
	}
	grow = final - r.highest()
	freed = final - r.readOff
	r.final, r.hasFinal = final, true
	s.peerReset, s.peerCode = true, code
	r.skip(final)
	return grow, freed, nil
}

// recvDone reports whether nothing more is to come in or be read.
func (s *stream) recvDone() bool {
	if !s.hasRecv {
		return true
	}
	if s.peerReset {
		return s.resetRead || s.stopped
	}
	return s.recv.finished() || (s.stopped && s.recv.hasFinal)
}

// sendDone reports whether the peer has everything or the stream was reset.
func (s *stream) sendDone() bool {
	if !s.hasSend {
		return true
	}
	if s.resetSent || s.resetOwed {
		return s.resetAcked
	}
	return s.send.done()
}

// appendControl appends the stream's RESET_STREAM, STOP_SENDING,
// MAX_STREAM_DATA and STREAM_DATA_BLOCKED frames that fit in room bytes.
func (s *stream) appendControl(b []byte, room int, p *packetBuilder) []byte {
	const most = 1 + 8 + 8 + 8
	if s.resetOwed && room >= most {
		f := Frame{Type: FrameResetStream, StreamID: s.id, Code: s.resetCode, FinalSize: s.resetFinal}
		n := len(b)
		b = AppendFrame(b, &f)
		room -= len(b) - n
		s.resetOwed, s.resetSent = false, true
		p.record(frameRec{kind: recReset, id: s.id})
	}
	if s.stopOwed && room >= most {
		f := Frame{Type: FrameStopSending, StreamID: s.id, Code: s.stopCode}
		n := len(b)
		b = AppendFrame(b, &f)
		room -= len(b) - n
		s.stopOwed = false
		p.record(frameRec{kind: recStopSending, id: s.id})
	}
	if s.maxDataOwed && room >= most {
		f := Frame{Type: FrameMaxStreamData, StreamID: s.id, Limit: s.recvMax}
		n := len(b)
		b = AppendFrame(b, &f)
		room -= len(b) - n
		s.maxDataOwed = false
		p.record(frameRec{kind: recMaxStreamData, id: s.id})
	}
	if s.blockedOwed && room >= most {
		f := Frame{Type: FrameStreamDataBlocked, StreamID: s.id, Limit: s.sendMax}
		b = AppendFrame(b, &f)
		s.blockedOwed = false
		p.ackEliciting = true
	}
	return b
}

// appendData appends one STREAM frame of at most room bytes, new data
// limited by connCredit; it returns the new bytes sent.
func (s *stream) appendData(b []byte, room int, connCredit uint64, p *packetBuilder) ([]byte, uint64) {
	if !s.hasSend || s.resetSent || s.resetOwed {
		return b, 0
	}
	limit := min(s.sendMax, s.send.next+connCredit)
	hdr := 1 + VarintLen(s.id) + 8 + 2
	if room <= hdr {
		return b, 0
	}
	off, n, fin, ok := s.send.chunk(room-hdr, limit)
	if !ok {
		if s.send.next == s.sendMax && s.send.end() > s.sendMax && s.blockedAt != s.sendMax+1 {
			s.blockedAt, s.blockedOwed = s.sendMax+1, true
		}
		return b, 0
	}
	b = AppendStreamFrame(b, s.id, off, s.send.bytes(off, n), fin, true)
	fresh := uint64(0)
	if e := off + uint64(n); e > s.send.next {
		fresh = e - s.send.next
	}
	s.send.onSent(off, n, fin)
	p.record(frameRec{kind: recStream, id: s.id, off: off, n: uint32(n), fin: fin})
	return b, fresh
}
