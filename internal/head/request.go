package head

import "github.com/gust-http/gust/internal/ascii"

// Field is one header field. Name and Value view the buffer the head was
// parsed from or stored in; Value has no leading or trailing whitespace.
type Field struct{ Name, Value []byte }

// Request is a request head: what a request is, independent of the
// protocol that carries it. Every []byte views memory the Request does not
// own, so a Request is valid only as long as that memory is unchanged.
//
// Parsed from HTTP/1.1, Headers holds every field of the head as received,
// Host among them. Filled from HTTP/2, Headers holds the regular fields
// and the pseudo-fields are Method, Scheme, Host and Target. Staged to be
// sent, Headers holds the fields as HTTP/1.1 writes them, Host first; the
// HTTP/2 encoder takes :authority from Host and leaves out the fields
// HTTP/2 forbids.
type Request struct {
	Method []byte // a token, case-sensitive: "GET", "POST", ...
	// Scheme is HTTP/2's :scheme; nil for HTTP/1.1, whose connection
	// decides it.
	Scheme []byte
	Target []byte // the raw request-target (HTTP/2's :path)
	// Path is Target up to '?' for the origin-form ("/a/b?c" gives "/a/b"),
	// and the whole Target for the asterisk, absolute and authority forms.
	Path []byte
	// Query is the part of an origin-form Target after '?', without it; it
	// is nil when there is no '?' and empty for a Target ending in '?'.
	Query        []byte
	Major, Minor int // HTTP version: 1.0 or 1.1, or 2.0
	// Headers lists the header fields in order. A parser appends to
	// Headers[:0], so a caller that keeps one Request per connection reuses
	// the backing array and parses without allocating.
	Headers []Field
	// Host is the authority of the request: HTTP/2's :authority, or the
	// Host field's value, or, for an HTTP/1.1 absolute-form or
	// authority-form (CONNECT) Target, the authority in the Target, which
	// RFC 9112 section 3.2.2 says replaces the Host field. It is nil for an
	// HTTP/1.0 request without either.
	Host          []byte
	ContentLength int64 // -1 when absent
	Chunked       bool  // Transfer-Encoding whose final (and only) coding is chunked
	// Close reports that the connection must close after the response:
	// "Connection: close", or HTTP/1.0 without "Connection: keep-alive".
	Close bool
	// Expect100 reports "Expect: 100-continue" in an HTTP/1.1 request; RFC
	// 9110 section 10.1.1 says to ignore it in HTTP/1.0. Other expectations
	// are ignored.
	Expect100 bool
	// HeadLen is the bytes of an HTTP/1.1 head as parsed, including empty
	// lines before the request line and the final blank line; 0 otherwise.
	HeadLen int
}

// Get returns the value of the first header field named name, compared
// without regard to ASCII case, or nil if there is none. It does not
// allocate.
func (h *Request) Get(name string) []byte {
	for i := range h.Headers {
		if ascii.EqualFold(h.Headers[i].Name, name) {
			return h.Headers[i].Value
		}
	}
	return nil
}

// KeepAlive reports whether the connection may carry another request after
// the response to this one.
func (h *Request) KeepAlive() bool { return !h.Close }

// SplitTarget sets Path and Query from Target for the origin-form: Path
// up to '?', Query after it (nil without '?'). Other forms keep the whole
// Target as Path.
func (h *Request) SplitTarget() {
	h.Path, h.Query = h.Target, nil
	if len(h.Target) == 0 || h.Target[0] != '/' {
		return
	}
	for i, c := range h.Target {
		if c == '?' {
			h.Path, h.Query = h.Target[:i], h.Target[i+1:]
			return
		}
	}
}
