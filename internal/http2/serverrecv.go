package http2

import "errors"

// ErrMalformedRequest is the reason of a stream reset for a request header
// block that breaks RFC 9113 section 8.3.1 or 8.2.
var ErrMalformedRequest = errors.New("http2: malformed request header block")

// Feed parses the client's bytes: the connection preface, then frames. It
// appends what they call for to out (acknowledgements, WINDOW_UPDATEs,
// RST_STREAM, pending response DATA the windows now admit, GOAWAY on a
// connection error) and returns the bytes of in consumed; the caller keeps
// in[n:] for the next call. Events are in Events until the next Feed.
//
// len(out) on entry should be the bytes not yet written to the client: it
// is what MaxPendingOutput bounds. A connection error is returned after a
// GOAWAY carrying its code is appended; later calls return it again.
func (s *ServerConn) Feed(out, in []byte) ([]byte, int, error) {
	s.events = s.events[:0]
	if s.err != nil {
		return out, 0, s.err
	}
	n := 0
	if !s.gotPreface {
		k := min(len(in), len(ClientPreface))
		if string(in[:k]) != ClientPreface[:k] {
			return s.fail(out, connErr(ErrCodeProtocol, "not the HTTP/2 client preface")), 0, s.err
		}
		if k < len(ClientPreface) {
			return out, 0, nil
		}
		s.gotPreface, n = true, k
	}
	for {
		f, k, err := s.reader.Next(in[n:])
		if err != nil {
			if _, stream := err.(StreamError); !stream {
				return s.fail(out, err), n, s.err
			}
		}
		if k == 0 {
			break
		}
		n += k
		if out, err = s.frame(out, &f, err); err != nil {
			return s.fail(out, err), n, s.err
		}
	}
	return s.flush(out), n, nil
}

func (s *ServerConn) fail(out []byte, err error) []byte {
	s.err = err
	for slot := range s.slots {
		if st := &s.slots[slot]; st.id != 0 {
			s.events = append(s.events, ServerEvent{Kind: ServerReset, StreamID: st.id, Code: CodeOf(err), Err: err})
			s.closeStream(int32(slot))
		}
	}
	return AppendGoAway(out, s.lastPeerID, CodeOf(err), nil)
}

func (s *ServerConn) frame(out []byte, f *Frame, rerr error) ([]byte, error) {
	h := &f.Header
	if !s.gotSettings {
		if h.Type != FrameSettings || h.Flags.Has(FlagAck) {
			return out, connErr(ErrCodeProtocol, "the client preface is not followed by SETTINGS")
		}
	}
	switch h.Type {
	case FrameData:
		return s.onData(out, f)
	case FrameHeaders:
		return s.onHeaders(out, f, rerr)
	case FrameContinuation:
		if err := s.dec.WriteFragment(f.Payload(), true); err != nil {
			return out, err
		}
		if h.Flags.Has(FlagEndHeaders) {
			return s.endBlock(out)
		}
	case FrameRSTStream:
		return out, s.onRSTStream(f)
	case FrameSettings:
		return s.onSettings(out, f)
	case FramePushPromise:
		return out, connErr(ErrCodeProtocol, "PUSH_PROMISE from a client")
	case FramePing:
		if !h.Flags.Has(FlagAck) {
			if len(out) > s.cfg.MaxPendingOutput {
				return out, connErr(ErrCodeEnhanceYourCalm, "PING flood: acknowledgements not read")
			}
			out = AppendPing(out, f.PingData(), true)
		}
	case FrameGoAway:
		s.events = append(s.events, ServerEvent{Kind: ServerGoAway, StreamID: f.LastStreamID(), Code: f.ErrCode()})
	case FrameWindowUpdate:
		return s.onWindowUpdate(out, f, rerr)
	case FramePriority:
		if rerr != nil {
			return s.streamError(out, h.StreamID, rerr), nil
		}
	}
	return out, nil
}

// idle reports whether a stream id names a stream the client has not
// opened; frames other than HEADERS and PRIORITY on one are a connection
// PROTOCOL_ERROR (RFC 9113 section 5.1).
func (s *ServerConn) idle(id uint32) bool { return id&1 == 0 || id > s.lastPeerID }

// streamError resets a stream for err: RST_STREAM, a ServerReset event for
// an open stream, and a point against the Rapid Reset limit.
func (s *ServerConn) streamError(out []byte, id uint32, err error) []byte {
	out = AppendRSTStream(out, id, CodeOf(err))
	if _, slot := s.open(id); slot >= 0 {
		s.events = append(s.events, ServerEvent{Kind: ServerReset, StreamID: id, Code: CodeOf(err), Err: err})
		s.closeStream(slot)
	}
	return out
}

// countReset scores a stream ended before its response completed.
func (s *ServerConn) countReset() error {
	s.resets++
	if s.resets > s.cfg.MaxResets {
		return connErr(ErrCodeEnhanceYourCalm, "too many streams reset or refused (Rapid Reset)")
	}
	return nil
}

func (s *ServerConn) onData(out []byte, f *Frame) ([]byte, error) {
	h := &f.Header
	if s.idle(h.StreamID) {
		return out, connErr(ErrCodeProtocol, "DATA on an idle stream")
	}
	if !s.recvConn.Receive(h.Length) {
		return out, connErr(ErrCodeFlowControl, "DATA beyond the connection window")
	}
	st, _ := s.open(h.StreamID)
	var err error
	data := f.Payload()
	end := h.Flags.Has(FlagEndStream)
	switch {
	case st == nil && s.shutdown && h.StreamID > s.goAwayID:
		// A stream opened after our GOAWAY: ignored, not reset.
		if incr := s.recvConn.Consume(h.Length); incr > 0 {
			out = AppendWindowUpdate(out, 0, incr)
		}
		return out, nil
	case st == nil || st.remoteDone:
		err = streamErr(h.StreamID, ErrCodeStreamClosed, "DATA on a closed stream")
	case !st.recv.Receive(h.Length):
		err = streamErr(h.StreamID, ErrCodeFlowControl, "DATA beyond the stream window")
	case st.contentLength >= 0 && (st.bodyBytes+int64(len(data)) > st.contentLength ||
		end && st.bodyBytes+int64(len(data)) != st.contentLength):
		err = streamErr(h.StreamID, ErrCodeProtocol, "body length differs from content-length")
	}
	if err != nil {
		// Nothing reaches the application: the connection's credit comes
		// back at once.
		if incr := s.recvConn.Consume(h.Length); incr > 0 {
			out = AppendWindowUpdate(out, 0, incr)
		}
		return s.streamError(out, h.StreamID, err), nil
	}
	st.bodyBytes += int64(len(data))
	if len(data) > 0 || end {
		s.events = append(s.events, ServerEvent{Kind: ServerData, StreamID: st.id, Data: data, EndStream: end})
	}
	credit := h.Length // padding, and the data too unless the caller credits it
	if s.cfg.ManualBodyCredit {
		credit -= uint32(len(data))
	}
	if incr := s.recvConn.Consume(credit); incr > 0 {
		out = AppendWindowUpdate(out, 0, incr)
	}
	if end {
		st.remoteDone = true
		return out, nil
	}
	if incr := st.recv.Consume(credit); incr > 0 {
		out = AppendWindowUpdate(out, st.id, incr)
	}
	return out, nil
}

// Consume gives back n bytes of request body credit on a stream (and the
// connection) once the application took them, with ManualBodyCredit set.
// WINDOW_UPDATEs go out in half-window batches. A stream already closed
// or ended gives back only the connection's credit.
func (s *ServerConn) Consume(out []byte, id uint32, n int) []byte {
	if s.err != nil || n <= 0 {
		return out
	}
	if incr := s.recvConn.Consume(uint32(n)); incr > 0 {
		out = AppendWindowUpdate(out, 0, incr)
	}
	if st, _ := s.open(id); st != nil && !st.remoteDone {
		if incr := st.recv.Consume(uint32(n)); incr > 0 {
			out = AppendWindowUpdate(out, id, incr)
		}
	}
	return out
}

func (s *ServerConn) onRSTStream(f *Frame) error {
	id := f.Header.StreamID
	if s.idle(id) {
		return connErr(ErrCodeProtocol, "RST_STREAM on an idle stream")
	}
	_, slot := s.open(id)
	if slot < 0 {
		return nil
	}
	s.events = append(s.events, ServerEvent{Kind: ServerReset, StreamID: id, Code: f.ErrCode()})
	s.closeStream(slot)
	return s.countReset()
}

func (s *ServerConn) onSettings(out []byte, f *Frame) ([]byte, error) {
	if f.Header.Flags.Has(FlagAck) {
		s.dec.SettingsAcked()
		return out, nil
	}
	if s.gotSettings && len(out) > s.cfg.MaxPendingOutput {
		return out, connErr(ErrCodeEnhanceYourCalm, "SETTINGS flood: acknowledgements not read")
	}
	old := s.peer.InitialWindowSize
	for i := 0; i < f.NumSettings(); i++ {
		id, v := f.Setting(i)
		if err := s.peer.Apply(id, v); err != nil {
			return out, err
		}
		if id == SettingHeaderTableSize {
			s.enc.SetPeerTableSize(v)
		}
	}
	if delta := int64(s.peer.InitialWindowSize) - int64(old); delta != 0 {
		for slot := range s.slots {
			if st := &s.slots[slot]; st.id != 0 && !st.send.Adjust(delta) {
				return out, connErr(ErrCodeFlowControl, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window")
			}
		}
	}
	s.gotSettings = true
	return AppendSettingsAck(out), nil
}

func (s *ServerConn) onWindowUpdate(out []byte, f *Frame, rerr error) ([]byte, error) {
	id := f.Header.StreamID
	if id == 0 {
		if !s.sendConn.Add(f.WindowIncrement()) {
			return out, connErr(ErrCodeFlowControl, "WINDOW_UPDATE overflows the connection window")
		}
		return out, nil
	}
	if s.idle(id) {
		return out, connErr(ErrCodeProtocol, "WINDOW_UPDATE on an idle stream")
	}
	if rerr != nil {
		return s.streamError(out, id, rerr), nil
	}
	if st, _ := s.open(id); st != nil && !st.send.Add(f.WindowIncrement()) {
		return s.streamError(out, id, streamErr(id, ErrCodeFlowControl, "WINDOW_UPDATE overflows the stream window")), nil
	}
	return out, nil
}
