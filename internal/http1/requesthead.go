package http1

import (
	"errors"

	"github.com/gust-http/gust/internal/head"
)

// DefaultMaxHeaders is the number of header fields ParseRequestHead accepts
// when Limits.MaxHeaders is zero.
const DefaultMaxHeaders = 100

// A request head is parsed into a head.Request (internal/head), the one
// request head HTTP/1.1 and HTTP/2 share: the server's HTTP/2 streams fill
// the same type from HPACK fields.

// Limits bounds what ParseRequestHead accepts. Zero (or negative) fields mean
// the defaults.
type Limits struct {
	// MaxHeadBytes is the largest head accepted, request line and blank
	// line included; the default is DefaultMaxHead (64 KiB).
	MaxHeadBytes int
	// MaxHeaders is the largest number of header fields accepted; the
	// default is DefaultMaxHeaders (100).
	MaxHeaders int
}

// ParseRequestHead parses the request head at the start of buf into h,
// resetting h first but keeping the capacity of h.Headers.
//
// It returns the head length (also stored in h.HeadLen); the body, if any,
// starts at buf[n:] and is framed as h.BodyKind says. It returns ErrIncomplete
// if buf does not yet hold a full head and is shorter than the head limit,
// and otherwise an error for which StatusForError gives the status to answer
// before closing the connection. A head of exactly MaxHeadBytes is accepted;
// a longer one is ErrMethodTooLong if the limit falls inside the method,
// ErrURITooLong if it falls inside the request-target, and ErrHeadTooLarge
// otherwise.
//
// The parser is strict where a lenient one would let two implementations
// disagree about a request (RFC 9112 section 11.2, request smuggling):
//   - Every line must end in CRLF. RFC 9112 section 2.2 lets a recipient
//     accept a bare LF, but a proxy in front of this server that does not
//     would see different header fields; a bare LF is refused.
//   - Empty lines (CRLF) before the request line are skipped, as RFC 9112
//     section 2.2 asks, and counted in the head length.
//   - The request line is method SP request-target SP HTTP-version with
//     single spaces (RFC 9112 section 3); see parseRequestLine for the
//     request-target rules. A major version other than 1 is ErrBadVersion.
//   - Header lines with whitespace before the colon, obs-fold, a bare CR or
//     a control byte other than HTAB are refused (RFC 9112 section 5).
//   - Host must appear exactly once in HTTP/1.1, at most once in HTTP/1.0,
//     with a valid uri-host [":" port] value (RFC 9112 section 3.2).
//   - Content-Length must be digits; repeated fields must be identical,
//     and a comma list is refused (RFC 9110 section 8.6 allows either).
//   - Transfer-Encoding is refused with Content-Length (RFC 9112 section
//     6.1 allows that), in HTTP/1.0 (section 6.1), when the final coding is
//     not chunked (section 6.3 item 4: 400) and when chunked appears twice
//     (section 7); a list ending in chunked that also names another coding
//     is ErrUnsupportedTE (section 6.1: 501).
//
// A malformed head is refused as soon as the offending line is in buf,
// without waiting for the rest, so parsing a prefix of buf returns either
// ErrIncomplete or the same result as parsing buf. Each call parses from the
// start of buf.
//
// h is meaningful only when the error is nil. buf is not retained beyond the
// slices in h, and nothing is allocated unless h.Headers needs to grow.
func ParseRequestHead(buf []byte, lim Limits, h *head.Request) (int, error) {
	maxHead, maxFields := lim.MaxHeadBytes, lim.MaxHeaders
	if maxHead <= 0 {
		maxHead = DefaultMaxHead
	}
	if maxFields <= 0 {
		maxFields = DefaultMaxHeaders
	}
	b := buf
	if len(b) > maxHead {
		b = b[:maxHead]
	}
	*h = head.Request{Headers: h.Headers[:0], ContentLength: -1}

	next, err := parseRequestLine(h, b)
	if err == ErrIncomplete {
		if len(buf) >= maxHead {
			switch limitEndsIn(b) {
			case inMethod:
				return 0, ErrMethodTooLong
			case inTarget:
				return 0, ErrURITooLong
			}
		}
		return 0, incomplete(len(buf), maxHead)
	}
	if err != nil {
		return 0, err
	}

	var f requestFields
	for {
		name, value, n, end, err := nextField(b, next)
		if err == ErrIncomplete {
			return 0, incomplete(len(buf), maxHead)
		}
		if err != nil {
			return 0, err
		}
		if b[n-2] != '\r' { // n-2 >= 0: the request line came first
			return 0, ErrBadHeader
		}
		next = n
		if end {
			break
		}
		if len(h.Headers) == maxFields {
			return 0, ErrTooManyHeaders
		}
		h.Headers = append(h.Headers, head.Field{Name: name, Value: value})
		if err := f.parse(h, name, value); err != nil {
			return 0, err
		}
	}
	if err := f.finish(h); err != nil {
		return 0, err
	}
	h.HeadLen = next
	return next, nil
}

// RequestBodyKind returns how the request body of h is framed: BodyChunked for
// Transfer-Encoding: chunked, BodyLength for a positive Content-Length, and
// BodyNone otherwise (RFC 9112 section 6.3 item 7: a request without either
// has no body). It never returns BodyUntilClose.
func RequestBodyKind(h *head.Request) BodyKind {
	switch {
	case h.Chunked:
		return BodyChunked
	case h.ContentLength > 0:
		return BodyLength
	}
	return BodyNone
}

// StatusForError returns the status code a server should answer a request
// with before closing the connection, given the error from ParseRequestHead
// (or from a ChunkedDecoder reading the request body):
//
//   - 431 for ErrHeadTooLarge and ErrTooManyHeaders,
//   - 414 for ErrURITooLong,
//   - 505 for ErrBadVersion,
//   - 501 for ErrUnsupportedTE and ErrMethodTooLong,
//   - 400 for every other parse error (IsMalformed reports true),
//   - 0 for nil, ErrIncomplete and errors that are not parse errors, such
//     as I/O errors: there is nothing to answer, or no one to answer to.
//
// Wrapped errors are recognised. StatusForError does not allocate.
func StatusForError(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrHeadTooLarge), errors.Is(err, ErrTooManyHeaders):
		return 431
	case errors.Is(err, ErrURITooLong):
		return 414
	case errors.Is(err, ErrBadVersion):
		return 505
	case errors.Is(err, ErrUnsupportedTE), errors.Is(err, ErrMethodTooLong):
		return 501
	case IsMalformed(err):
		return 400
	}
	return 0
}
