package http3

// AppendControlStreamStart appends what opens this endpoint's control
// stream (RFC 9114 section 6.2.1): its stream type, then the SETTINGS
// frame, which must be the stream's first frame. The control stream is
// never closed afterwards.
func AppendControlStreamStart(b []byte, s Settings) []byte {
	return AppendSettings(AppendStreamType(b, StreamControl), s)
}

// PeerControl reads the peer's control stream past its stream type, as a
// client: SETTINGS first and once (H3_MISSING_SETTINGS,
// H3_FRAME_UNEXPECTED), GOAWAY with a client-initiated bidirectional
// stream ID never larger than the last (H3_ID_ERROR), no frame that a
// control stream may not carry (H3_FRAME_UNEXPECTED), unknown and
// reserved frame types skipped. A client that sends no MAX_PUSH_ID allows
// no push, so a CANCEL_PUSH is an H3_ID_ERROR (RFC 9114 section 7.2.3).
// The stream ending is H3_CLOSED_CRITICAL_STREAM. Every error is a
// ConnError. Inside a Server it reads a client's control stream instead:
// MAX_PUSH_ID is allowed, and GOAWAY and CANCEL_PUSH name push IDs, which
// a server that never pushes notes and ignores.
type PeerControl struct {
	r          FrameReader
	settings   Settings
	gotSetting bool
	goAway     uint64
	gotGoAway  bool
	closed     bool
	server     bool // this endpoint is the server: the peer's frames are a client's
}

// Settings returns the peer's settings, and false until its SETTINGS
// frame has arrived (DefaultSettings hold until then).
func (c *PeerControl) Settings() (Settings, bool) {
	if !c.gotSetting {
		return DefaultSettings(), false
	}
	return c.settings, true
}

// GoAway returns the stream ID of the peer's last GOAWAY: requests on
// streams from it up were not and will not be processed. ok is false
// before any GOAWAY.
func (c *PeerControl) GoAway() (id uint64, ok bool) { return c.goAway, c.gotGoAway }

// Receive consumes the control stream's next bytes; fin is true when the
// stream ended (or was reset: call it with no bytes and fin).
func (c *PeerControl) Receive(p []byte, fin bool) error {
	if c.closed {
		return connErr(ErrCodeClosedCriticalStream, "bytes after the control stream closed")
	}
	c.r.Kind, c.r.Client = KindControl, !c.server
	for len(p) > 0 {
		f, n, ok, err := c.r.Next(p)
		if err != nil {
			return err
		}
		p = p[n:]
		if !ok {
			break
		}
		if err := c.frame(&f); err != nil {
			return err
		}
	}
	if fin {
		c.closed = true
		return connErr(ErrCodeClosedCriticalStream, "the peer closed its control stream")
	}
	return nil
}

// frame applies one whole frame of the control stream.
func (c *PeerControl) frame(f *Frame) error {
	switch f.Type {
	case FrameSettings:
		c.settings = DefaultSettings()
		if err := ParseSettings(f.Payload, &c.settings); err != nil {
			return err
		}
		c.gotSetting = true
	case FrameGoAway:
		if c.server {
			// A client's GOAWAY names a push ID; this server never pushes.
			c.goAway, c.gotGoAway = f.ID, true
			return nil
		}
		if f.ID%4 != 0 {
			return connErr(ErrCodeID, "GOAWAY names a stream that is not a client-initiated bidirectional one")
		}
		if c.gotGoAway && f.ID > c.goAway {
			return connErr(ErrCodeID, "GOAWAY with a larger stream ID than the last")
		}
		c.goAway, c.gotGoAway = f.ID, true
	case FrameCancelPush:
		if c.server {
			return nil // no push was promised, so there is nothing to cancel
		}
		return connErr(ErrCodeID, "CANCEL_PUSH though no push was allowed")
	}
	return nil
}
