package http1

import (
	"bytes"
	"math"

	"github.com/gust-http/gust/internal/ascii"
)

// nextField scans the header line starting at b[start] and returns the
// field's name, its value trimmed of OWS, and the offset after the line;
// end is true when the line is the blank line ending the head. It returns
// ErrIncomplete when b ends first and ErrBadHeader as soon as it meets a
// byte that cannot belong to a valid field line. Validating while looking
// for the line end touches each byte once.
func nextField(b []byte, start int) (name, value []byte, next int, end bool, err error) {
	i := start
	for i < len(b) && tokenByte[b[i]] {
		i++
	}
	if i == len(b) {
		return nil, nil, 0, false, ErrIncomplete
	}
	if i == start || b[i] != ':' {
		// Only the blank line may start with a non-token byte. A name that
		// is not a token also catches obs-fold (a line starting with SP or
		// HTAB) and whitespace before the colon, both of which RFC 9112
		// section 5 requires a recipient to reject or repair.
		if i == start {
			switch {
			case b[i] == '\n':
				return nil, nil, i + 1, true, nil
			case b[i] == '\r' && i+1 == len(b):
				return nil, nil, 0, false, ErrIncomplete
			case b[i] == '\r' && b[i+1] == '\n':
				return nil, nil, i + 2, true, nil
			}
		}
		return nil, nil, 0, false, ErrBadHeader
	}
	j := textEnd(b, i+1)
	switch {
	case j == len(b):
		return nil, nil, 0, false, ErrIncomplete
	case b[j] == '\n':
		next = j + 1
	case b[j] == '\r' && j+1 == len(b):
		return nil, nil, 0, false, ErrIncomplete
	case b[j] == '\r' && b[j+1] == '\n':
		next = j + 2
	default: // a control byte, or a CR that does not end the line
		return nil, nil, 0, false, ErrBadHeader
	}
	return b[start:i], trimOWS(b[i+1 : j]), next, false, nil
}

// parseField records the fields that decide framing: Content-Length,
// Transfer-Encoding and Connection. Other fields are ignored.
func (h *ResponseHead) parseField(name, value []byte, conn *connTokens) error {
	switch len(name) {
	case len("connection"):
		if ascii.EqualLower(name, "connection") {
			conn.parse(value)
		}
	case len("content-length"):
		if ascii.EqualLower(name, "content-length") {
			return h.parseContentLength(value)
		}
	case len("transfer-encoding"):
		if ascii.EqualLower(name, "transfer-encoding") {
			return h.parseTransferEncoding(value)
		}
	case len("content-type"):
		if ascii.EqualLower(name, "content-type") {
			h.EventStream = isEventStream(value)
		}
	}
	return nil
}

// isEventStream reports whether a Content-Type value's media type is
// text/event-stream, in any case, with or without parameters.
func isEventStream(v []byte) bool {
	const mt = "text/event-stream"
	if len(v) < len(mt) || !ascii.EqualLower(v[:len(mt)], mt) {
		return false
	}
	rest := v[len(mt):]
	return len(rest) == 0 || rest[0] == ';' || rest[0] == ' ' || rest[0] == '\t'
}

// parseContentLength merges a Content-Length value into h.ContentLength.
// The value may be a list, and the field may repeat, as long as every
// element is the same number (RFC 9110 section 8.6).
func (h *ResponseHead) parseContentLength(v []byte) error {
	for {
		elem, rest, more := nextElement(v)
		n, ok := parseDecimal(elem)
		if !ok || h.ContentLength >= 0 && n != h.ContentLength {
			return ErrBadContentLength
		}
		h.ContentLength = n
		if !more {
			return nil
		}
		v = rest
	}
}

// parseDecimal parses a non-empty run of decimal digits.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// parseTransferEncoding records a Transfer-Encoding value. Repeated fields
// form one list, so the final coding is the last one of the last field;
// empty list elements are ignored (RFC 9110 section 5.6.1).
func (h *ResponseHead) parseTransferEncoding(v []byte) error {
	h.transferEncoding = true
	for {
		elem, rest, more := nextElement(v)
		if len(elem) > 0 {
			coding := elem
			if i := bytes.IndexByte(elem, ';'); i >= 0 {
				coding = trimOWS(elem[:i])
			}
			if !IsToken(coding) {
				return ErrBadHeader
			}
			h.Chunked = ascii.EqualLower(coding, "chunked")
		}
		if !more {
			return nil
		}
		v = rest
	}
}

// parse records the connection options of a Connection value.
func (c *connTokens) parse(v []byte) {
	for {
		elem, rest, more := nextElement(v)
		switch {
		case ascii.EqualLower(elem, "close"):
			c.close = true
		case ascii.EqualLower(elem, "keep-alive"):
			c.keepAlive = true
		}
		if !more {
			return
		}
		v = rest
	}
}
