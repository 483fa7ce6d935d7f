package http2

import "errors"

// serverBlock is the state of the request header block being decoded. A
// block is decoded to the end even for a stream refused or closed, since
// HPACK state belongs to the connection.
type serverBlock struct {
	slot                            int32 // -1: decode and discard
	id                              uint32
	endStream                       bool
	trailers                        bool
	closedErr                       error // the block arrived on a stream it may not: reported after decoding
	refuse                          bool  // a new stream beyond the limit
	code                            ErrCode
	err                             error
	sawRegular                      bool
	method, scheme, authority, path string
	protocol                        string // :protocol (RFC 8441), only with EnableConnectProtocol
	contentLength                   int64
	trailerStart                    int // where trailer fields begin in the stream's header storage
}

func (b *serverBlock) malformed() {
	if b.err == nil {
		b.code, b.err = ErrCodeProtocol, ErrMalformedRequest
	}
}

func (s *ServerConn) onHeaders(out []byte, f *Frame, rerr error) ([]byte, error) {
	id := f.Header.StreamID
	if id&1 == 0 {
		return out, connErr(ErrCodeProtocol, "HEADERS on a server-initiated stream id")
	}
	s.hdr = serverBlock{slot: -1, id: id, endStream: f.Header.Flags.Has(FlagEndStream), contentLength: -1}
	b := &s.hdr
	if rerr != nil {
		b.code, b.err = CodeOf(rerr), rerr
	}
	switch st, slot := s.open(id); {
	case id > s.lastPeerID:
		s.lastPeerID = id
		switch {
		case s.shutdown:
			// Opened after our GOAWAY: ignored, the client retries it.
		case s.active >= s.cfg.MaxStreams:
			b.refuse = true
		default:
			slot := takeSlot(&s.slots, &s.free)
			s.slots[slot].reset(id, s.peer.InitialWindowSize, s.cfg.StreamWindow)
			s.streams.put(id, slot)
			s.active++
			b.slot = slot
		}
	case st == nil:
		b.closedErr = connErr(ErrCodeStreamClosed, "HEADERS on a closed stream")
	case st.remoteDone:
		b.slot, b.closedErr = slot, streamErr(id, ErrCodeStreamClosed, "HEADERS on a half-closed stream")
	default:
		b.slot, b.trailers, b.trailerStart = slot, true, len(st.header)
	}
	s.dec.Begin()
	if err := s.dec.WriteFragment(f.Payload(), false); err != nil {
		return out, err
	}
	if f.Header.Flags.Has(FlagEndHeaders) {
		return s.endBlock(out)
	}
	return out, nil
}

// onField checks one decoded request field (RFC 9113 section 8.3.1 and
// 8.2) and stores it on the stream.
func (s *ServerConn) onField(name, value string) {
	b := &s.hdr
	if b.slot < 0 || b.err != nil || b.closedErr != nil {
		return
	}
	if len(name) > 0 && name[0] == ':' {
		if b.sawRegular || b.trailers {
			b.malformed()
			return
		}
		var dst *string
		switch name {
		case ":method":
			dst = &b.method
		case ":scheme":
			dst = &b.scheme
		case ":authority":
			dst = &b.authority
		case ":path":
			dst = &b.path
		case ":protocol":
			if !s.cfg.EnableConnectProtocol {
				b.malformed() // RFC 8441 section 3: not advertised, so unknown
				return
			}
			dst = &b.protocol
		default:
			b.malformed()
			return
		}
		if *dst != "" || value == "" {
			b.malformed()
			return
		}
		*dst = value
		return
	}
	b.sawRegular = true
	if !validFieldName(name) || name == "te" && value != "trailers" {
		b.malformed()
		return
	}
	if name == "content-length" && !b.trailers {
		n, ok := parseContentLength(value)
		if !ok || b.contentLength >= 0 && b.contentLength != n {
			b.malformed()
			return
		}
		b.contentLength = n
	}
	st := &s.slots[b.slot]
	st.header = append(st.header, Field{Name: name, Value: value})
}

// endBlock acts on a complete request header block.
func (s *ServerConn) endBlock(out []byte) ([]byte, error) {
	b := &s.hdr
	slot := b.slot
	b.slot = -1
	tooLarge := false
	if err := s.dec.End(); err != nil {
		if !errors.Is(err, ErrHeaderListTooLarge) {
			return out, err
		}
		tooLarge = true
	}
	if b.closedErr != nil {
		if _, conn := b.closedErr.(ConnError); conn {
			return out, b.closedErr
		}
		return s.streamError(out, b.id, b.closedErr), nil
	}
	if b.refuse {
		out = AppendRSTStream(out, b.id, ErrCodeRefusedStream)
		return out, s.countReset()
	}
	if slot < 0 {
		return out, nil
	}
	st := &s.slots[slot]
	if tooLarge && !b.trailers {
		// RFC 9113 section 10.5.1: answer 431 rather than reset.
		st.remoteDone = b.endStream
		out, _ = s.WriteHeaders(out, b.id, 431, nil, true)
		return out, nil
	}
	if tooLarge {
		b.code, b.err = ErrCodeProtocol, ErrHeaderListTooLarge
	}
	if b.trailers && !b.endStream {
		b.malformed()
	}
	if !b.trailers {
		switch {
		case b.protocol != "":
			// RFC 8441 section 4: an extended CONNECT carries :scheme,
			// :path and :authority like any request.
			if b.method != "CONNECT" || b.scheme == "" || b.path == "" || b.authority == "" {
				b.malformed()
			}
		case b.method == "CONNECT":
			if b.authority == "" || b.scheme != "" || b.path != "" {
				b.malformed()
			}
		case b.method == "" || b.scheme == "" || b.path == "":
			b.malformed()
		}
	}
	if b.err != nil {
		out = s.streamError(out, b.id, streamErr(b.id, b.code, b.err.Error()))
		return out, s.countReset()
	}
	if b.trailers {
		st.remoteDone = true
		if st.contentLength >= 0 && st.bodyBytes != st.contentLength {
			return s.streamError(out, b.id, streamErr(b.id, ErrCodeProtocol, "body length differs from content-length")), nil
		}
		s.events = append(s.events, ServerEvent{Kind: ServerTrailers, StreamID: b.id, Header: st.header[b.trailerStart:], EndStream: true})
		return out, nil
	}
	st.gotHeaders, st.remoteDone, st.contentLength = true, b.endStream, b.contentLength
	if b.endStream && b.contentLength > 0 {
		return s.streamError(out, b.id, streamErr(b.id, ErrCodeProtocol, "body length differs from content-length")), nil
	}
	s.events = append(s.events, ServerEvent{Kind: ServerRequest, StreamID: b.id, Method: b.method, Scheme: b.scheme,
		Authority: b.authority, Path: b.path, Protocol: b.protocol, Header: st.header, EndStream: b.endStream})
	return out, nil
}
