package http1

import (
	"bytes"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/head"
)

// requestFields collects what the header fields of a request say about its
// framing while ParseRequestHead walks them; finish checks the whole.
type requestFields struct {
	conn          connTokens
	host          []byte // the Host field's value
	hosts         int    // Host fields seen
	contentLength []byte // the first Content-Length value, trimmed
	te            bool   // a Transfer-Encoding field was seen
	chunked       bool   // chunked was the last coding seen (and so far the only chunked)
	otherCoding   bool   // a coding other than chunked was seen
	expect100     bool
}

// parse records one header field. Errors that a later field cannot change
// are reported here, as soon as the field is read.
func (f *requestFields) parse(h *head.Request, name, value []byte) error {
	switch len(name) {
	case len("host"):
		if ascii.EqualLower(name, "host") {
			f.hosts++
			// An empty value is valid: RFC 9112 section 3.2 has clients
			// send one when the target URI has no authority.
			if f.hosts > 1 || len(value) > 0 && !validAuthority(value, false) {
				return ErrBadHost
			}
			f.host = value
		}
	case len("expect"):
		if ascii.EqualLower(name, "expect") {
			f.parseExpect(value)
		}
	case len("connection"):
		if ascii.EqualLower(name, "connection") {
			f.conn.parse(value)
		}
	case len("content-length"):
		if ascii.EqualLower(name, "content-length") {
			return f.parseContentLength(h, value)
		}
	case len("transfer-encoding"):
		if ascii.EqualLower(name, "transfer-encoding") {
			return f.parseTransferEncoding(h, value)
		}
	}
	return nil
}

// parseContentLength records a Content-Length value. RFC 9110 section 8.6
// lets a recipient either refuse or accept a list of identical values and
// repeated identical fields. A list is refused: no correct sender generates
// one, and an intermediary that ignored it as invalid would see no body.
// Repeated fields with byte-identical values are accepted, as net/http does,
// because every reading of them gives the same length.
func (f *requestFields) parseContentLength(h *head.Request, v []byte) error {
	if f.contentLength != nil {
		if !bytes.Equal(v, f.contentLength) {
			return ErrBadContentLength
		}
		return nil
	}
	n, ok := parseDecimal(v)
	if !ok {
		return ErrBadContentLength
	}
	f.contentLength = v
	h.ContentLength = n
	return nil
}

// parseTransferEncoding records a Transfer-Encoding value. Repeated fields
// form one list (RFC 9110 section 5.3). Anything after chunked is refused at
// once: chunked must be final and applied once (RFC 9112 sections 6.3 and
// 7). So are empty list elements and transfer parameters: RFC 9110 section
// 5.6.1 asks recipients to skip empty elements, but a stricter intermediary
// could read such a list differently, no coding this package decodes takes
// parameters, and a quoted parameter could hide a comma.
func (f *requestFields) parseTransferEncoding(h *head.Request, v []byte) error {
	if h.Minor == 0 {
		// RFC 9112 section 6.1: Transfer-Encoding in HTTP/1.0 means
		// faulty framing, whatever else the message says.
		return ErrBadTransferEncoding
	}
	f.te = true
	for {
		coding, rest, more := nextElement(v)
		if f.chunked || !IsToken(coding) {
			return ErrBadTransferEncoding
		}
		if ascii.EqualLower(coding, "chunked") {
			f.chunked = true
		} else {
			f.otherCoding = true
		}
		if !more {
			return nil
		}
		v = rest
	}
}

// parseExpect records whether an Expect list holds 100-continue, which RFC
// 9110 section 10.1.1 defines case-insensitively.
func (f *requestFields) parseExpect(v []byte) {
	for {
		elem, rest, more := nextElement(v)
		if ascii.EqualLower(elem, "100-continue") {
			f.expect100 = true
		}
		if !more {
			return
		}
		v = rest
	}
}

// finish checks what only the whole header section can tell and fills in
// the fields of h that depend on several header fields.
func (f *requestFields) finish(h *head.Request) error {
	if f.te {
		switch {
		case f.contentLength != nil:
			// RFC 9112 section 6.1 lets a server either refuse the
			// request or let Transfer-Encoding win; refusing leaves no
			// room for a front end that chose the other way.
			return ErrBadTransferEncoding
		case !f.chunked:
			// RFC 9112 section 6.3 item 4: the final coding is not
			// chunked, so the body length cannot be determined; a
			// server MUST answer 400 and close.
			return ErrBadTransferEncoding
		case f.otherCoding:
			// The framing is sound (chunked is final) but the request
			// applies a coding this package does not decode: RFC 9112
			// section 6.1 says a server SHOULD answer 501.
			return ErrUnsupportedTE
		}
		h.Chunked = true
	}
	http10 := h.Minor == 0
	if f.hosts == 0 && !http10 {
		return ErrBadHost // RFC 9112 section 3.2
	}
	if h.Host == nil {
		// An absolute-form or authority-form target has set h.Host
		// already; it takes precedence (RFC 9112 section 3.2.2).
		h.Host = f.host
	}
	h.Close = f.conn.close || http10 && !f.conn.keepAlive
	h.Expect100 = f.expect100 && !http10
	return nil
}
