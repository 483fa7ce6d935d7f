package http2

// clientStream is one request's state on a ClientConn. A stream is open
// from Open until both sides ended it (or a reset); the states of RFC 9113
// section 5.1 map to localDone and remoteDone: open (neither),
// half-closed (local) (localDone), half-closed (remote) (remoteDone).
type clientStream struct {
	id            uint32
	tag           uint64
	send          SendWindow
	recv          RecvWindow
	body          []byte // request body not yet sent
	wantData      bool
	tunnel        bool // the body's end does not end the stream (Request.Tunnel)
	localDone     bool // END_STREAM sent
	remoteDone    bool // END_STREAM received
	gotFinal      bool // final response headers received
	status        int
	bodyBytes     int64
	contentLength int64 // from the response, -1 if absent
	noBody        bool  // a HEAD request: content-length describes no body
}

// flush sends request body DATA for the pending streams, one frame per
// stream per round so streams share the connection window, until every
// body is sent or every window is shut.
func (c *ClientConn) flush(out []byte) []byte {
	for progress := true; progress && len(c.pending) > 0; {
		progress = false
		for i := 0; i < len(c.pending); {
			s := &c.slots[c.pending[i]]
			n := int64(len(s.body))
			n = min(n, int64(c.peer.MaxFrameSize), c.sendConn.Available(), s.send.Available())
			if n <= 0 {
				i++
				continue
			}
			progress = true
			end := int(n) == len(s.body)
			out = AppendData(out, s.id, s.body[:n], end && !s.tunnel)
			c.sendConn.Consume(int(n))
			s.send.Consume(int(n))
			s.body = s.body[n:]
			if !end {
				i++
				continue
			}
			s.body = nil
			slot := c.pending[i]
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			if s.tunnel {
				continue // the stream stays open for more
			}
			s.localDone = true
			if s.remoteDone {
				c.closeStream(slot)
			}
		}
	}
	return out
}

// closeStream forgets a stream: its id, its slot and any body left to send.
func (c *ClientConn) closeStream(slot int32) {
	s := &c.slots[slot]
	c.streams.del(s.id)
	for i, p := range c.pending {
		if p == slot {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	*s = clientStream{}
	c.free = append(c.free, slot)
	c.active--
}

// resetStream sends RST_STREAM with code, reports EventFailed with err and
// closes the stream.
func (c *ClientConn) resetStream(out []byte, slot int32, code ErrCode, err error) []byte {
	s := &c.slots[slot]
	out = AppendRSTStream(out, s.id, code)
	c.events = append(c.events, Event{Kind: EventFailed, StreamID: s.id, Tag: s.tag, Status: s.status,
		Code: code, BodyBytes: s.bodyBytes, Err: err})
	c.closeStream(slot)
	return out
}

// endRemote handles END_STREAM from the peer: the response is complete. A
// request body still unsent is abandoned with RST_STREAM(CANCEL), as the
// peer has answered without it.
func (c *ClientConn) endRemote(out []byte, slot int32) []byte {
	s := &c.slots[slot]
	if s.contentLength >= 0 && s.contentLength != s.bodyBytes && !s.noBody && s.status != 304 {
		return c.resetStream(out, slot, ErrCodeProtocol, errContentLength)
	}
	s.remoteDone = true
	c.events = append(c.events, Event{Kind: EventEnd, StreamID: s.id, Tag: s.tag, Status: s.status, BodyBytes: s.bodyBytes})
	if !s.localDone {
		out = AppendRSTStream(out, s.id, ErrCodeCancel)
	}
	c.closeStream(slot)
	return out
}

// failAll reports every open stream failed with the connection's error, as
// after a connection error nothing more arrives for them.
func (c *ClientConn) failAll(code ErrCode, err error) {
	for slot := range c.slots {
		s := &c.slots[slot]
		if s.id == 0 {
			continue
		}
		c.events = append(c.events, Event{Kind: EventFailed, StreamID: s.id, Tag: s.tag, Status: s.status,
			Code: code, BodyBytes: s.bodyBytes, Err: err})
		c.closeStream(int32(slot))
	}
}
