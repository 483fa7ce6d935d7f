package http3

import (
	"errors"
	"strconv"
)

// ResponseHandler hears of a response as a RequestStream reads it. Heads,
// fields and data are views valid only during the call.
type ResponseHandler interface {
	// Informational is called for each 1xx response before the final one.
	Informational(h *ResponseHead)
	// Headers is called once, for the final response's head.
	Headers(h *ResponseHead)
	// Data is called with each piece of the content as it arrives.
	Data(p []byte)
	// Trailers is called at most once, after the content.
	Trailers(fields []Field)
	// End is called when the response is complete.
	End()
}

// The send side's states: the request's HEADERS, then DATA, then optional
// trailers; the caller ends the stream with a FIN.
const (
	sendHeaders uint8 = iota
	sendBody
	sendDone
)

// The receive side's states.
const (
	recvHead     uint8 = iota // waiting for the final response's HEADERS
	recvBody                  // DATA, or trailers
	recvTrailers              // after trailers: only the FIN
	recvDone                  // complete
	recvFailed                // a stream error was returned: the rest is discarded
)

// ErrRequestState is returned when a request's frames are appended out of
// order: HEADERS once and first, DATA then, trailers last.
var ErrRequestState = errors.New("http3: request frame out of order")

// RequestStream is a client's request stream, sans-I/O (RFC 9114 section
// 4.1): the caller appends the request's frames with AppendHeaders,
// AppendData and AppendTrailers and writes them to the QUIC stream, then
// hands Receive the bytes that arrive. Receive enforces the response's
// frame sequence: any number of 1xx heads, the final HEADERS, DATA, at most
// one trailer HEADERS; a frame out of that order is an H3_FRAME_UNEXPECTED
// ConnError, a PUSH_PROMISE an H3_ID_ERROR ConnError (this client allows
// no push). A malformed response (a head CheckResponse refuses, trailers
// CheckTrailers refuses, content that does not match content-length or
// that a HEAD, 204 or 304 response may not have, a stream ended before
// the final head) is a StreamError of H3_MESSAGE_ERROR: the caller resets
// the stream, and Receive discards what follows. Reuse one with Reset;
// once its buffers have grown it does not allocate.
type RequestStream struct {
	// Decoder decodes the response's field sections; its
	// MaxFieldSectionSize is this client's SETTINGS_MAX_FIELD_SECTION_SIZE.
	// A larger section is a StreamError of H3_EXCESSIVE_LOAD.
	Decoder Decoder

	id        uint64
	noContent bool // a HEAD request: the response has no content
	send      uint8
	recv      uint8
	r         FrameReader
	fields    []Field
	head      ResponseHead
	length    int64 // the response's content-length, -1 if none
	received  int64 // content bytes received
}

// Reset readies s for a new request on stream id, keeping its buffers;
// head says the request's method is HEAD.
func (s *RequestStream) Reset(id uint64, head bool) {
	s.id, s.noContent = id, head
	s.send, s.recv = sendHeaders, recvHead
	s.r = FrameReader{Kind: KindRequest, Client: true, MaxFrameSize: s.r.MaxFrameSize}
	s.length, s.received = -1, 0
}

// ID returns the stream's ID.
func (s *RequestStream) ID() uint64 { return s.id }

// AppendHeaders appends the request's HEADERS frame carrying section, an
// encoded field section (AppendSectionPrefix, AppendField).
func (s *RequestStream) AppendHeaders(b, section []byte) ([]byte, error) {
	if s.send != sendHeaders {
		return b, ErrRequestState
	}
	s.send = sendBody
	return AppendHeaders(b, section), nil
}

// AppendData appends a DATA frame carrying p, after the HEADERS.
func (s *RequestStream) AppendData(b, p []byte) ([]byte, error) {
	if s.send != sendBody {
		return b, ErrRequestState
	}
	return AppendData(b, p), nil
}

// AppendTrailers appends the trailers' HEADERS frame, the request's last.
func (s *RequestStream) AppendTrailers(b, section []byte) ([]byte, error) {
	if s.send != sendBody {
		return b, ErrRequestState
	}
	s.send = sendDone
	return AppendHeaders(b, section), nil
}

// Done reports whether the response is complete.
func (s *RequestStream) Done() bool { return s.recv == recvDone }

// streamErr returns a StreamError of code on this stream.
func (s *RequestStream) streamErr(code ErrCode, reason string) error {
	s.recv = recvFailed
	return StreamError{StreamID: s.id, Code: code, Reason: reason}
}

// Receive consumes the response's next bytes from the stream; fin is true
// when they end it.
func (s *RequestStream) Receive(p []byte, fin bool, h ResponseHandler) error {
	if s.recv == recvFailed {
		return nil
	}
	if s.recv == recvDone {
		if len(p) > 0 {
			return connErr(ErrCodeFrameUnexpected, "bytes after the response ended")
		}
		return nil
	}
	for len(p) > 0 {
		f, n, ok, err := s.r.Next(p)
		if err != nil {
			return err
		}
		p = p[n:]
		if !ok {
			break
		}
		if err := s.frame(&f, h); err != nil || s.recv == recvFailed {
			return err
		}
	}
	if !fin {
		return nil
	}
	if err := s.r.End(); err != nil {
		return err
	}
	switch {
	case s.recv == recvHead:
		return s.streamErr(ErrCodeMessage, "stream ended before the response's head")
	case s.length >= 0 && s.received != s.length:
		return s.streamErr(ErrCodeMessage, "content shorter than content-length "+strconv.FormatInt(s.length, 10))
	}
	s.recv = recvDone
	h.End()
	return nil
}

// frame applies one frame, or DATA piece, of the response.
func (s *RequestStream) frame(f *Frame, h ResponseHandler) error {
	switch f.Type {
	case FramePushPromise:
		return connErr(ErrCodeID, "PUSH_PROMISE though no push was allowed")
	case FrameData:
		if s.recv != recvBody {
			return connErr(ErrCodeFrameUnexpected, "DATA "+s.where())
		}
		if len(f.Payload) == 0 {
			return nil
		}
		s.received += int64(len(f.Payload))
		if s.noContent {
			return s.streamErr(ErrCodeMessage, "content in a response that has none")
		}
		if s.length >= 0 && s.received > s.length {
			return s.streamErr(ErrCodeMessage, "content longer than content-length")
		}
		h.Data(f.Payload)
		return nil
	case FrameHeaders:
		if s.recv == recvTrailers {
			return connErr(ErrCodeFrameUnexpected, "HEADERS after the trailers")
		}
		var err error
		s.fields, err = s.Decoder.Decode(s.fields[:0], f.Payload)
		if errors.Is(err, ErrFieldSectionTooLarge) {
			return s.streamErr(ErrCodeExcessiveLoad, "response field section larger than the limit")
		}
		if err != nil {
			return err
		}
		if s.recv == recvBody {
			return s.trailers(h)
		}
		return s.responseHead(h)
	}
	return nil
}

// where names the receive state for an error's reason.
func (s *RequestStream) where() string {
	if s.recv == recvHead {
		return "before the response's head"
	}
	return "after the trailers"
}

// responseHead checks a decoded head: a 1xx one, or the final one.
func (s *RequestStream) responseHead(h ResponseHandler) error {
	if err := CheckResponse(s.fields, &s.head); err != nil {
		return s.streamErr(ErrCodeMessage, reasonOf(err))
	}
	switch st := s.head.Status; {
	case st == 101:
		// HTTP/3 has no Upgrade (RFC 9114 section 4.5).
		return s.streamErr(ErrCodeMessage, "101 Switching Protocols")
	case st < 200:
		h.Informational(&s.head)
		return nil
	case st == 204 || st == 304:
		s.noContent = true
	}
	if !s.noContent {
		s.length = s.head.ContentLength
	}
	s.recv = recvBody
	h.Headers(&s.head)
	return nil
}

// trailers checks the decoded trailers, which end the content.
func (s *RequestStream) trailers(h ResponseHandler) error {
	if err := CheckTrailers(s.fields); err != nil {
		return s.streamErr(ErrCodeMessage, reasonOf(err))
	}
	if s.length >= 0 && s.received != s.length {
		return s.streamErr(ErrCodeMessage, "content shorter than content-length")
	}
	s.recv = recvTrailers
	h.Trailers(s.fields)
	return nil
}

// reasonOf returns a MalformedError's reason, or the error's text.
func reasonOf(err error) string {
	var me MalformedError
	if errors.As(err, &me) {
		return me.Reason
	}
	return err.Error()
}
