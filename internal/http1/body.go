package http1

// BodyKind says how the body of a response is delimited (RFC 9112 section 6.3).
type BodyKind uint8

// The ways a response body can be delimited.
const (
	BodyNone       BodyKind = iota // no body follows the head
	BodyLength                     // ContentLength bytes follow the head
	BodyChunked                    // a chunked body follows; decode it with ChunkedDecoder
	BodyUntilClose                 // the body runs until the server closes the connection
)

// String returns the name of the constant, for logs and test failures.
func (k BodyKind) String() string {
	switch k {
	case BodyNone:
		return "BodyNone"
	case BodyLength:
		return "BodyLength"
	case BodyChunked:
		return "BodyChunked"
	case BodyUntilClose:
		return "BodyUntilClose"
	}
	return "BodyKind(invalid)"
}

// Body returns how the body following h is framed, given whether the request
// was HEAD. Responses to HEAD and 1xx, 204 and 304 responses have no body; a
// Transfer-Encoding overrides Content-Length and means BodyChunked when its
// final coding is chunked and BodyUntilClose otherwise; a Content-Length of
// zero means BodyNone; with neither field the body runs until close.
//
// BodyUntilClose means the connection cannot be reused, whatever h.Close says.
// Body does not know the request method beyond HEAD: a 2xx response to
// CONNECT has no body either, and callers that send CONNECT must handle it.
func (h *ResponseHead) Body(headRequest bool) BodyKind {
	switch {
	case headRequest,
		h.StatusCode >= 100 && h.StatusCode < 200,
		h.StatusCode == 204,
		h.StatusCode == 304:
		return BodyNone
	case h.Chunked:
		return BodyChunked
	case h.transferEncoding:
		return BodyUntilClose
	case h.ContentLength > 0:
		return BodyLength
	case h.ContentLength == 0:
		return BodyNone
	}
	return BodyUntilClose
}
