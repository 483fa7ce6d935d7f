package http2

import "errors"

// headerBlock is the state of the response header block being decoded. A
// block is always decoded to the end, even for a stream already closed or
// failed, since HPACK state is shared by the whole connection.
type headerBlock struct {
	slot          int32 // -1: the stream is closed; decode and discard
	id            uint32
	endStream     bool
	trailers      bool // the stream has its final headers: this block is trailers
	code          ErrCode
	err           error // a stream error found in the block
	sawRegular    bool  // a regular field was seen: pseudo-fields must come first
	status        int
	contentLength int64
}

// Malformed responses (RFC 9113 section 8.1.1), reported by EventFailed
// after RST_STREAM(PROTOCOL_ERROR).
var (
	ErrMalformedHeaders = errors.New("http2: malformed response header block")
	ErrMissingStatus    = errors.New("http2: response without :status")
	ErrTrailersNoEnd    = errors.New("http2: trailers without END_STREAM")
)

func (c *ClientConn) onHeaders(out []byte, f *Frame, rerr error) ([]byte, error) {
	slot, err := c.lookup(f.Header.StreamID)
	if err != nil {
		return out, err
	}
	c.hdr = headerBlock{slot: slot, id: f.Header.StreamID, endStream: f.Header.Flags.Has(FlagEndStream), contentLength: -1}
	if rerr != nil {
		c.hdr.code, c.hdr.err = CodeOf(rerr), rerr
	}
	if slot >= 0 {
		c.hdr.trailers = c.slots[slot].gotFinal
	}
	c.dec.Begin()
	if err := c.dec.WriteFragment(f.Payload(), false); err != nil {
		return out, err
	}
	if f.Header.Flags.Has(FlagEndHeaders) {
		return c.endBlock(out)
	}
	return out, nil
}

func (c *ClientConn) onContinuation(out []byte, f *Frame) ([]byte, error) {
	if err := c.dec.WriteFragment(f.Payload(), true); err != nil {
		return out, err
	}
	if f.Header.Flags.Has(FlagEndHeaders) {
		return c.endBlock(out)
	}
	return out, nil
}

// malformed records the block's first malformation.
func (h *headerBlock) malformed(err error) {
	if h.err == nil {
		h.code, h.err = ErrCodeProtocol, err
	}
}

// onField checks one decoded response field (RFC 9113 section 8.3.2 and
// 8.2): :status first and once, no other pseudo-field, none in trailers,
// lowercase names, no connection-specific fields.
func (c *ClientConn) onField(name, value string) {
	h := &c.hdr
	if h.slot < 0 || h.err != nil {
		return
	}
	if len(name) > 0 && name[0] == ':' {
		if h.sawRegular || h.trailers || name != ":status" || h.status != 0 {
			h.malformed(ErrMalformedHeaders)
			return
		}
		if len(value) != 3 || !isDigit(value[0]) || !isDigit(value[1]) || !isDigit(value[2]) {
			h.malformed(ErrMalformedHeaders)
			return
		}
		h.status = int(value[0]-'0')*100 + int(value[1]-'0')*10 + int(value[2]-'0')
		return
	}
	h.sawRegular = true
	if !validFieldName(name) {
		h.malformed(ErrMalformedHeaders)
		return
	}
	if name == "content-length" && !h.trailers {
		n, ok := parseContentLength(value)
		if !ok || (h.contentLength >= 0 && h.contentLength != n) {
			h.malformed(ErrMalformedHeaders)
			return
		}
		h.contentLength = n
	}
	if c.cfg.HeaderFunc != nil {
		c.cfg.HeaderFunc(c.slots[h.slot].tag, name, value)
	}
}

// endBlock acts on a complete response header block.
func (c *ClientConn) endBlock(out []byte) ([]byte, error) {
	h := &c.hdr
	if err := c.dec.End(); err != nil {
		if !errors.Is(err, ErrHeaderListTooLarge) {
			return out, err
		}
		if h.err == nil {
			h.code, h.err = ErrCodeCancel, err
		}
	}
	slot := h.slot
	h.slot = -1
	if slot < 0 {
		return out, nil
	}
	if h.err != nil {
		return c.resetStream(out, slot, h.code, h.err), nil
	}
	s := &c.slots[slot]
	if !h.trailers {
		switch {
		case h.status == 0:
			return c.resetStream(out, slot, ErrCodeProtocol, ErrMissingStatus), nil
		case h.status == 101 || (h.status < 200 && h.endStream):
			return c.resetStream(out, slot, ErrCodeProtocol, ErrMalformedHeaders), nil
		case h.status < 200:
			return out, nil // informational: the final headers follow
		}
		s.gotFinal, s.status, s.contentLength = true, h.status, h.contentLength
		c.events = append(c.events, Event{Kind: EventHeaders, StreamID: s.id, Tag: s.tag, Status: s.status})
	} else {
		if !h.endStream {
			return c.resetStream(out, slot, ErrCodeProtocol, ErrTrailersNoEnd), nil
		}
		c.events = append(c.events, Event{Kind: EventTrailers, StreamID: s.id, Tag: s.tag, Status: s.status})
	}
	if h.endStream {
		return c.endRemote(out, slot), nil
	}
	return out, nil
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// validFieldName rejects empty and uppercase names and the
// connection-specific fields HTTP/2 forbids (RFC 9113 section 8.2.2).
func validFieldName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if b := name[i]; b >= 'A' && b <= 'Z' || b <= ' ' || b == 0x7f {
			return false
		}
	}
	switch name {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
		return false
	}
	return true
}

// parseContentLength parses a content-length value: digits only, at most
// 18 of them so it cannot overflow.
func parseContentLength(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return 0, false
		}
		n = n*10 + int64(v[i]-'0')
	}
	return n, true
}
