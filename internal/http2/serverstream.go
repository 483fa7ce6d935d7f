package http2

import "strconv"

// serverStream is one request's state on a ServerConn: open from its
// HEADERS until both sides ended it or it is reset. remoteDone is
// half-closed (remote), localDone half-closed (local) (RFC 9113 5.1).
type serverStream struct {
	id            uint32
	send          SendWindow
	recv          RecvWindow
	remoteDone    bool // END_STREAM received
	gotHeaders    bool // the request headers arrived: a later block is trailers
	headersSent   bool
	localDone     bool   // END_STREAM sent
	body          []byte // response body the windows have not admitted yet
	endAfter      bool   // END_STREAM goes with the body's last byte
	header        []Field
	contentLength int64
	bodyBytes     int64
}

// reset clears a slot for a new stream, keeping the header storage.
func (st *serverStream) reset(id uint32, send, recv uint32) {
	*st = serverStream{id: id, send: NewSendWindow(send), recv: NewRecvWindow(recv),
		header: st.header[:0], contentLength: -1}
}

func (s *ServerConn) open(id uint32) (*serverStream, int32) {
	slot := s.streams.get(id)
	if slot < 0 {
		return nil, -1
	}
	return &s.slots[slot], slot
}

// WriteHeaders appends the response headers of a stream: :status, then
// fields (lowercase names). endStream ends the response with no body.
func (s *ServerConn) WriteHeaders(out []byte, id uint32, status int, fields []Field, endStream bool) ([]byte, error) {
	st, slot := s.open(id)
	if st == nil || s.err != nil {
		return out, ErrStreamNotOpen
	}
	if st.headersSent {
		return out, ErrHeadersSent
	}
	s.enc.Begin()
	s.enc.Field(":status", statusString(status))
	for _, f := range fields {
		s.enc.Field(f.Name, f.Value)
	}
	out = AppendHeaders(out, id, s.enc.Block(), endStream, s.peer.MaxFrameSize)
	st.headersSent = true
	if endStream {
		out = s.endLocal(out, slot)
	}
	return out, nil
}

// WriteData queues response body bytes and appends as many DATA frames as
// the windows allow; the rest goes out from later Feed calls. The engine
// keeps data (not a copy) until Pending is 0. endStream ends the response
// after the last byte.
func (s *ServerConn) WriteData(out []byte, id uint32, data []byte, endStream bool) ([]byte, error) {
	st, slot := s.open(id)
	if st == nil || s.err != nil || st.localDone {
		return out, ErrStreamNotOpen
	}
	if len(st.body) > 0 {
		return out, ErrDataPending
	}
	if len(data) == 0 {
		if endStream {
			out = AppendData(out, id, nil, true)
			out = s.endLocal(out, slot)
		}
		return out, nil
	}
	st.body, st.endAfter = data, endStream
	s.pending = append(s.pending, slot)
	return s.flush(out), nil
}

// WriteTrailers appends a trailer block, which ends the response.
func (s *ServerConn) WriteTrailers(out []byte, id uint32, fields []Field) ([]byte, error) {
	st, slot := s.open(id)
	if st == nil || s.err != nil || st.localDone {
		return out, ErrStreamNotOpen
	}
	if len(st.body) > 0 {
		return out, ErrDataPending
	}
	s.enc.Begin()
	for _, f := range fields {
		s.enc.Field(f.Name, f.Value)
	}
	out = AppendHeaders(out, id, s.enc.Block(), true, s.peer.MaxFrameSize)
	return s.endLocal(out, slot), nil
}

// Pending returns the response body bytes of a stream still waiting for
// window.
func (s *ServerConn) Pending(id uint32) int {
	if st, _ := s.open(id); st != nil {
		return len(st.body)
	}
	return 0
}

// Reset resets a stream with code; no event is reported for it.
func (s *ServerConn) Reset(out []byte, id uint32, code ErrCode) []byte {
	if _, slot := s.open(id); slot >= 0 && s.err == nil {
		out = AppendRSTStream(out, id, code)
		s.closeStream(slot)
	}
	return out
}

// endLocal records END_STREAM sent. A stream whose request is complete
// closes; one whose request body is still coming is reset with NO_ERROR,
// as RFC 9113 section 8.1 lets a server that answered early do.
func (s *ServerConn) endLocal(out []byte, slot int32) []byte {
	st := &s.slots[slot]
	st.localDone = true
	if s.resets > 0 {
		s.resets-- // a finished response earns back one reset
	}
	if !st.remoteDone {
		out = AppendRSTStream(out, st.id, ErrCodeNo)
	}
	s.closeStream(slot)
	return out
}

// flush sends pending response body DATA, one frame per stream per round.
func (s *ServerConn) flush(out []byte) []byte {
	for progress := true; progress && len(s.pending) > 0; {
		progress = false
		for i := 0; i < len(s.pending); {
			slot := s.pending[i]
			st := &s.slots[slot]
			n := min(int64(len(st.body)), int64(s.peer.MaxFrameSize), s.sendConn.Available(), st.send.Available())
			if n <= 0 {
				i++
				continue
			}
			progress = true
			last := int(n) == len(st.body)
			out = AppendData(out, st.id, st.body[:n], last && st.endAfter)
			s.sendConn.Consume(int(n))
			st.send.Consume(int(n))
			st.body = st.body[n:]
			if !last {
				i++
				continue
			}
			st.body = nil
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			if st.endAfter {
				out = s.endLocal(out, slot)
			}
		}
	}
	return out
}

// closeStream forgets a stream.
func (s *ServerConn) closeStream(slot int32) {
	st := &s.slots[slot]
	s.streams.del(st.id)
	for i, p := range s.pending {
		if p == slot {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	st.id, st.body = 0, nil
	s.free = append(s.free, slot)
	s.active--
}

// statusString returns the three digits of a status code without
// allocating for the common ones.
func statusString(code int) string {
	switch code {
	case 200:
		return "200"
	case 204:
		return "204"
	case 206:
		return "206"
	case 304:
		return "304"
	case 400:
		return "400"
	case 404:
		return "404"
	case 431:
		return "431"
	case 500:
		return "500"
	}
	return strconv.Itoa(code)
}
