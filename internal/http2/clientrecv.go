package http2

import "errors"

// Feed parses the frames at the start of in, appends what they call for to
// out (SETTINGS and PING acknowledgements, WINDOW_UPDATEs as response data
// is consumed, request body DATA the peer's windows now admit, RST_STREAM
// for stream errors, GOAWAY for a connection error) and returns the
// extended out and the bytes of in consumed. A partial frame at the end is
// left unconsumed: the caller keeps in[n:] and calls again with more bytes
// after it. The events observed are in Events until the next Feed.
//
// A connection error is returned as a ConnError after a GOAWAY carrying its
// code is appended and every open stream is reported with EventFailed; the
// caller writes out and closes the connection. Later calls return the same
// error.
func (c *ClientConn) Feed(out, in []byte) ([]byte, int, error) {
	c.events = c.events[:0]
	if c.err != nil {
		return out, 0, c.err
	}
	n := 0
	for {
		f, k, err := c.reader.Next(in[n:])
		if err != nil {
			// A type assertion, not errors.As: the reader returns the
			// value itself, and errors.As would move a variable to the heap
			// on every frame.
			if _, stream := err.(StreamError); !stream {
				return c.fail(out, err), n, c.err
			}
		}
		if k == 0 {
			break
		}
		n += k
		out, err = c.frame(out, &f, err)
		if err != nil {
			return c.fail(out, err), n, c.err
		}
	}
	return c.flush(out), n, nil
}

// Events returns the events of the last Feed, valid until the next Feed.
func (c *ClientConn) Events() []Event { return c.events }

// fail ends the connection on err: GOAWAY with its code, every stream failed.
func (c *ClientConn) fail(out []byte, err error) []byte {
	code := CodeOf(err)
	c.err = err
	c.failAll(code, err)
	return AppendGoAway(out, 0, code, nil)
}

// frame handles one frame; rerr is a stream error the reader found in it.
// It returns a connection error, or nil.
func (c *ClientConn) frame(out []byte, f *Frame, rerr error) ([]byte, error) {
	h := &f.Header
	if !c.gotSettings && (h.Type != FrameSettings || h.Flags.Has(FlagAck)) {
		return out, connErr(ErrCodeProtocol, "the server preface is not a SETTINGS frame")
	}
	switch h.Type {
	case FrameData:
		return c.onData(out, f)
	case FrameHeaders:
		return c.onHeaders(out, f, rerr)
	case FrameContinuation:
		return c.onContinuation(out, f)
	case FrameRSTStream:
		return out, c.onRSTStream(f)
	case FrameSettings:
		return c.onSettings(out, f)
	case FramePushPromise:
		return out, connErr(ErrCodeProtocol, "PUSH_PROMISE with push disabled")
	case FramePing:
		if !h.Flags.Has(FlagAck) {
			out = AppendPing(out, f.PingData(), true)
		}
	case FrameGoAway:
		c.onGoAway(f)
	case FrameWindowUpdate:
		return c.onWindowUpdate(out, f, rerr)
	case FramePriority:
		// Priority signals are ignored (RFC 9113 section 5.3.2); a malformed
		// PRIORITY frame is still a stream error.
		if rerr != nil {
			return c.resetByID(out, h.StreamID, rerr), nil
		}
	}
	return out, nil
}

// lookup returns the slot of a stream the peer sent a frame on, or -1 for
// a stream that is closed; a frame on a stream never opened (idle, or even
// since push is disabled) is a connection PROTOCOL_ERROR.
func (c *ClientConn) lookup(id uint32) (int32, error) {
	if id&1 == 0 || id >= c.nextID {
		return -1, connErr(ErrCodeProtocol, "frame on an idle stream")
	}
	return c.streams.get(id), nil
}

// resetByID sends RST_STREAM for a stream error on any stream; an open
// stream is reported failed and closed.
func (c *ClientConn) resetByID(out []byte, id uint32, err error) []byte {
	if slot := c.streams.get(id); slot >= 0 {
		return c.resetStream(out, slot, CodeOf(err), err)
	}
	return AppendRSTStream(out, id, CodeOf(err))
}

func (c *ClientConn) onData(out []byte, f *Frame) ([]byte, error) {
	h := &f.Header
	slot, err := c.lookup(h.StreamID)
	if err != nil {
		return out, err
	}
	if !c.recvConn.Receive(h.Length) {
		return out, connErr(ErrCodeFlowControl, "DATA beyond the connection window")
	}
	// The whole frame, padding included, is consumed at once: the engine
	// keeps no body, so the connection window is given back as data arrives.
	if incr := c.recvConn.Consume(h.Length); incr > 0 {
		out = AppendWindowUpdate(out, 0, incr)
	}
	if slot < 0 {
		return out, nil // a stream this side reset or finished: ignore
	}
	s := &c.slots[slot]
	if !s.gotFinal {
		return c.resetStream(out, slot, ErrCodeProtocol, errDataBeforeHeaders), nil
	}
	if !s.recv.Receive(h.Length) {
		return c.resetStream(out, slot, ErrCodeFlowControl, errStreamWindow), nil
	}
	data := f.Payload()
	s.bodyBytes += int64(len(data))
	if s.wantData && len(data) > 0 {
		c.events = append(c.events, Event{Kind: EventData, StreamID: s.id, Tag: s.tag, Status: s.status, Data: data})
	}
	if h.Flags.Has(FlagEndStream) {
		return c.endRemote(out, slot), nil
	}
	if incr := s.recv.Consume(h.Length); incr > 0 {
		out = AppendWindowUpdate(out, s.id, incr)
	}
	return out, nil
}

func (c *ClientConn) onRSTStream(f *Frame) error {
	slot, err := c.lookup(f.Header.StreamID)
	if err != nil || slot < 0 {
		return err
	}
	s := &c.slots[slot]
	code := f.ErrCode()
	c.events = append(c.events, Event{Kind: EventReset, StreamID: s.id, Tag: s.tag, Status: s.status,
		Code: code, BodyBytes: s.bodyBytes, Retryable: code == ErrCodeRefusedStream})
	c.closeStream(slot)
	return nil
}

func (c *ClientConn) onSettings(out []byte, f *Frame) ([]byte, error) {
	if f.Header.Flags.Has(FlagAck) {
		c.dec.SettingsAcked()
		c.acked = true
		return out, nil
	}
	oldWindow := c.peer.InitialWindowSize
	for i := 0; i < f.NumSettings(); i++ {
		id, v := f.Setting(i)
		if id == SettingEnablePush && v == 1 {
			return out, connErr(ErrCodeProtocol, "a server sent SETTINGS_ENABLE_PUSH 1")
		}
		if err := c.peer.Apply(id, v); err != nil {
			return out, err
		}
		if id == SettingHeaderTableSize {
			c.enc.SetPeerTableSize(v)
			c.encGen++
		}
	}
	if delta := int64(c.peer.InitialWindowSize) - int64(oldWindow); delta != 0 {
		for slot := range c.slots {
			s := &c.slots[slot]
			if s.id != 0 && !s.send.Adjust(delta) {
				return out, connErr(ErrCodeFlowControl, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window")
			}
		}
	}
	c.gotSettings = true
	return AppendSettingsAck(out), nil
}

func (c *ClientConn) onGoAway(f *Frame) {
	last := f.LastStreamID()
	if c.goAway && last > c.lastID {
		last = c.lastID // a later GOAWAY may only lower the last stream id
	}
	c.goAway, c.lastID = true, last
	for slot := range c.slots {
		s := &c.slots[slot]
		if s.id == 0 || s.id <= last {
			continue
		}
		c.events = append(c.events, Event{Kind: EventRefused, StreamID: s.id, Tag: s.tag,
			Code: f.ErrCode(), Retryable: true})
		c.closeStream(int32(slot))
	}
	c.events = append(c.events, Event{Kind: EventGoAway, StreamID: last, Code: f.ErrCode()})
}

func (c *ClientConn) onWindowUpdate(out []byte, f *Frame, rerr error) ([]byte, error) {
	id := f.Header.StreamID
	if id == 0 {
		if !c.sendConn.Add(f.WindowIncrement()) {
			return out, connErr(ErrCodeFlowControl, "WINDOW_UPDATE overflows the connection window")
		}
		return out, nil
	}
	slot, err := c.lookup(id)
	if err != nil {
		return out, err
	}
	if rerr != nil {
		return c.resetByID(out, id, rerr), nil
	}
	if slot < 0 {
		return out, nil
	}
	if !c.slots[slot].send.Add(f.WindowIncrement()) {
		return c.resetStream(out, slot, ErrCodeFlowControl, errStreamWindowOverflow), nil
	}
	return out, nil
}

// Stream errors found here, carried by EventFailed.
var (
	errDataBeforeHeaders    = errors.New("http2: DATA before the response headers")
	errStreamWindow         = errors.New("http2: DATA beyond the stream window")
	errStreamWindowOverflow = errors.New("http2: WINDOW_UPDATE overflows the stream window")
	errContentLength        = errors.New("http2: response body length differs from content-length")
)
