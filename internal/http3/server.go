package http3

import (
	"errors"
	"strconv"
)

// Server is the server side of an HTTP/3 connection's streams, sans-I/O
// (RFC 9114): the caller opens a unidirectional stream and writes Start's
// bytes to it (this server's control stream), hands every byte that
// arrives on a unidirectional stream the client opened to ReceiveUni, and
// reads each request with a RequestReader. It never pushes and uses no
// dynamic QPACK table.
type Server struct {
	// Settings are this server's SETTINGS; the zero value sends
	// DefaultSettings.
	Settings Settings

	uni uniStreams
}

// Start appends the bytes of this server's control stream: its type and
// SETTINGS (see AppendControlStreamStart).
func (s *Server) Start(b []byte) []byte {
	set := s.Settings
	if set == (Settings{}) {
		set = DefaultSettings()
	}
	return AppendControlStreamStart(b, set)
}

// PeerSettings returns the client's settings, and false until they have
// arrived.
func (s *Server) PeerSettings() (Settings, bool) { return s.uni.control.Settings() }

// ReceiveUni consumes bytes that arrived on unidirectional stream id,
// which the client opened, as Client.ReceiveUni does for the other role,
// except that a push stream from a client is an H3_STREAM_CREATION_ERROR.
func (s *Server) ReceiveUni(id uint64, p []byte, fin bool) (ignore bool, err error) {
	s.uni.server = true
	return s.uni.receive(id, p, fin)
}

// The states of a RequestReader.
const (
	reqHead     uint8 = iota // waiting for the request's HEADERS
	reqBody                  // DATA, or trailers
	reqTrailers              // after trailers: only the FIN
	reqDone                  // complete
	reqFailed                // a stream error was returned: the rest is discarded
)

// ErrBodyTooLarge is RequestReader.Receive's StreamError cause when the
// request's content passes MaxBody; the server may answer 413.
var ErrBodyTooLarge = errors.New("http3: request content larger than the limit")

// RequestReader reads a request from its stream, sans-I/O (RFC 9114
// section 4.1): one HEADERS, DATA, at most one trailer HEADERS, then the
// FIN. A frame out of that order is an H3_FRAME_UNEXPECTED ConnError; a
// malformed request (a head CheckRequest refuses, trailers CheckTrailers
// refuses, content that does not match content-length, a stream ended
// before the head) is a StreamError of H3_MESSAGE_ERROR, content past
// MaxBody one of H3_EXCESSIVE_LOAD wrapping ErrBodyTooLarge. The head's
// slices stay valid until Reset; the content is gathered in Body.
type RequestReader struct {
	// Decoder decodes the request's field sections; its
	// MaxFieldSectionSize is this server's SETTINGS_MAX_FIELD_SECTION_SIZE.
	Decoder Decoder
	// MaxBody bounds the content gathered in Body. Zero: no content is
	// allowed past the head.
	MaxBody int64
	// ExtendedConnect accepts :protocol (RFC 9220).
	ExtendedConnect bool

	// Head is the request's head once HeadDone reports true.
	Head RequestHead
	// Body is the content received so far.
	Body []byte
	// Trailers are the trailer fields, if any arrived.
	Trailers []Field

	id     uint64
	state  uint8
	r      FrameReader
	fields []Field
	raw    []byte // the fields' bytes, copied out of the frames and the decoder's buffer
}

// Reset readies r for the request on stream id, keeping its buffers.
func (r *RequestReader) Reset(id uint64) {
	r.id, r.state = id, reqHead
	r.r = FrameReader{Kind: KindRequest, MaxFrameSize: r.r.MaxFrameSize}
	r.Head = RequestHead{ContentLength: -1}
	r.Body, r.Trailers, r.fields, r.raw = r.Body[:0], nil, r.fields[:0], r.raw[:0]
}

// own copies the names and values of fields into storage of the reader's,
// so that they outlive the frame and the decoder's next section: the
// storage grows once, before any field points into it, and is reused
// from one request to the next.
func (r *RequestReader) own(fields []Field) {
	n := 0
	for i := range fields {
		n += len(fields[i].Name) + len(fields[i].Value)
	}
	if cap(r.raw)-len(r.raw) < n {
		// Fields already owned keep pointing at the old storage, which
		// stays alive through them.
		r.raw = make([]byte, 0, max(2*cap(r.raw), n))
	}
	for i := range fields {
		f := &fields[i]
		at := len(r.raw)
		r.raw = append(r.raw, f.Name...)
		f.Name = r.raw[at:len(r.raw):len(r.raw)]
		at = len(r.raw)
		r.raw = append(r.raw, f.Value...)
		f.Value = r.raw[at:len(r.raw):len(r.raw)]
	}
}

// HeadDone reports whether the request's head has arrived and checked.
func (r *RequestReader) HeadDone() bool { return r.state >= reqBody && r.state != reqFailed }

// Done reports whether the whole request has arrived.
func (r *RequestReader) Done() bool { return r.state == reqDone }

func (r *RequestReader) streamErr(code ErrCode, reason string) error {
	r.state = reqFailed
	return StreamError{StreamID: r.id, Code: code, Reason: reason}
}

// Receive consumes the request's next bytes from the stream; fin is true
// when they end it.
func (r *RequestReader) Receive(p []byte, fin bool) error {
	switch r.state {
	case reqFailed:
		return nil
	case reqDone:
		if len(p) > 0 {
			return connErr(ErrCodeFrameUnexpected, "bytes after the request ended")
		}
		return nil
	}
	for len(p) > 0 {
		f, n, ok, err := r.r.Next(p)
		if err != nil {
			return err
		}
		p = p[n:]
		if !ok {
			break
		}
		if err := r.frame(&f); err != nil || r.state == reqFailed {
			return err
		}
	}
	if !fin {
		return nil
	}
	if err := r.r.End(); err != nil {
		return err
	}
	switch {
	case r.state == reqHead:
		return r.streamErr(ErrCodeRequestIncomplete, "stream ended before the request's head")
	case r.Head.ContentLength >= 0 && int64(len(r.Body)) != r.Head.ContentLength:
		return r.streamErr(ErrCodeMessage, "content shorter than content-length "+strconv.FormatInt(r.Head.ContentLength, 10))
	}
	r.state = reqDone
	return nil
}

// frame applies one frame, or DATA piece, of the request.
func (r *RequestReader) frame(f *Frame) error {
	switch f.Type {
	case FrameData:
		if r.state != reqBody {
			if r.state == reqHead {
				return connErr(ErrCodeFrameUnexpected, "DATA before the request's head")
			}
			return connErr(ErrCodeFrameUnexpected, "DATA after the trailers")
		}
		if len(f.Payload) == 0 {
			return nil
		}
		got := int64(len(r.Body)) + int64(len(f.Payload))
		if r.Head.ContentLength >= 0 && got > r.Head.ContentLength {
			return r.streamErr(ErrCodeMessage, "content longer than content-length")
		}
		if got > r.MaxBody {
			r.state = reqFailed
			return StreamError{StreamID: r.id, Code: ErrCodeExcessiveLoad, Reason: ErrBodyTooLarge.Error()}
		}
		r.Body = append(r.Body, f.Payload...)
		return nil
	case FrameHeaders:
		if r.state == reqTrailers {
			return connErr(ErrCodeFrameUnexpected, "HEADERS after the trailers")
		}
		start := len(r.fields)
		var err error
		r.fields, err = r.Decoder.Decode(r.fields, f.Payload)
		if errors.Is(err, ErrFieldSectionTooLarge) {
			return r.streamErr(ErrCodeExcessiveLoad, "request field section larger than the limit")
		}
		if err != nil {
			return err
		}
		r.own(r.fields[start:])
		if r.state == reqBody {
			r.Trailers = r.fields[start:]
			if err := CheckTrailers(r.Trailers); err != nil {
				return r.streamErr(ErrCodeMessage, reasonOf(err))
			}
			r.state = reqTrailers
			return nil
		}
		if err := CheckRequest(r.fields, &r.Head, r.ExtendedConnect); err != nil {
			return r.streamErr(ErrCodeMessage, reasonOf(err))
		}
		r.state = reqBody
	}
	return nil
}

// IsBodyTooLarge reports whether err is the StreamError Receive returns
// for content past MaxBody.
func IsBodyTooLarge(err error) bool {
	var se StreamError
	return errors.As(err, &se) && se.Reason == ErrBodyTooLarge.Error()
}
