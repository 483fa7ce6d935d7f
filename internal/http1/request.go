package http1

import (
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/head"
)

// Request describes a request to serialize once and send many times.
type Request struct {
	Method string // "" means GET
	Target string // request-target, e.g. "/path?q=1"; "" means "/"
	Host   string // value of the Host field; sent even when empty, as RFC 9112 section 3.2 requires
	// Header holds extra header fields in order. A Host, Content-Length or
	// Connection field here overrides the default one; a Transfer-Encoding
	// field suppresses the default Content-Length; a User-Agent field
	// overrides UserAgent.
	Header    [][2]string
	Body      []byte
	Close     bool   // add "Connection: close"
	UserAgent string // "" means no User-Agent unless given in Header
}

// AppendRequest appends the serialized request to dst and returns the
// extended slice: the request line, Host, User-Agent, the Header fields in
// order, Content-Length when Body is non-empty or the method is POST, PUT or
// PATCH, "Connection: close" when Close, the blank line, and Body.
//
// The first Host field in Header takes the place of the default Host, first
// after the request line as RFC 9112 section 3.2 recommends; later Host
// fields are dropped, because servers must refuse a request with two.
//
// The bytes are those AppendHead writes for the head BuildHead makes of
// r, followed by Body; AppendRequest writes them directly, so that it
// needs no head. It does not validate r: check user input with ValidateHeader
// first. It allocates only when dst lacks capacity.
func AppendRequest(dst []byte, r *Request) []byte {
	method, target, o := r.line()

	dst = append(dst, method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	if o.host >= 0 {
		dst = append(dst, r.Header[o.host][1]...)
	} else {
		dst = append(dst, r.Host...)
	}
	dst = append(dst, "\r\n"...)
	if r.UserAgent != "" && !o.userAgent {
		dst = appendField(dst, "User-Agent", r.UserAgent)
	}
	for _, f := range r.Header {
		if o.host < 0 || !ascii.EqualLower(f[0], "host") {
			dst = appendField(dst, f[0], f[1])
		}
	}
	if !o.contentLength && !o.transferEncoding && (len(r.Body) > 0 || methodWantsBody(method)) {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(r.Body)), 10)
		dst = append(dst, "\r\n"...)
	}
	if r.Close && !o.connection {
		dst = append(dst, "Connection: close\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, r.Body...)
}

// BuildHead sets h to r's head, the one both protocols send: the request
// line's method and target, then the fields Host, User-Agent, the Header
// fields in order, Content-Length when Body is non-empty or the method is
// POST, PUT or PATCH, and "Connection: close" when Close. h.Host is the
// Host field's value; h.ContentLength the Content-Length sent, or -1.
//
// The first Host field in Header takes the place of the default Host, first
// after the request line as RFC 9112 section 3.2 recommends; later Host
// fields are dropped, because servers must refuse a request with two.
//
// h's slices view r's strings (and digits, where the Content-Length value
// is formatted): they must not be written through, and are valid as long
// as r's strings and digits are. BuildHead returns digits, extended; it
// allocates only when h.Headers or digits lack capacity.
func BuildHead(h *head.Request, r *Request, digits []byte) []byte {
	method, target, o := r.line()
	*h = head.Request{Method: view(method), Target: view(target), Major: 1, Minor: 1,
		Headers: h.Headers[:0], ContentLength: -1}
	h.SplitTarget()
	host := r.Host
	if o.host >= 0 {
		host = r.Header[o.host][1]
	}
	h.Host = view(host)
	if h.Host == nil {
		h.Host = empty // sent even when empty
	}
	h.Headers = append(h.Headers, head.Field{Name: hostName, Value: h.Host})
	if r.UserAgent != "" && !o.userAgent {
		h.Headers = append(h.Headers, head.Field{Name: userAgentName, Value: view(r.UserAgent)})
	}
	for _, f := range r.Header {
		if o.host < 0 || !ascii.EqualLower(f[0], "host") {
			h.Headers = append(h.Headers, head.Field{Name: view(f[0]), Value: view(f[1])})
		}
	}
	if !o.contentLength && !o.transferEncoding && (len(r.Body) > 0 || methodWantsBody(method)) {
		start := len(digits)
		digits = strconv.AppendInt(digits, int64(len(r.Body)), 10)
		h.Headers = append(h.Headers, head.Field{Name: contentLengthName, Value: digits[start:len(digits):len(digits)]})
		h.ContentLength = int64(len(r.Body))
	}
	if r.Close && !o.connection {
		h.Headers = append(h.Headers, head.Field{Name: connectionName, Value: closeValue})
		h.Close = true
	}
	return digits
}

// The names and values of the fields BuildHead adds.
var (
	hostName          = []byte("Host")
	userAgentName     = []byte("User-Agent")
	contentLengthName = []byte("Content-Length")
	connectionName    = []byte("Connection")
	closeValue        = []byte("close")
	empty             = []byte{}
)

// view returns s's bytes without copying; they must not be written. The
// empty string gives nil.
func view(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// AppendHead appends h as an HTTP/1.1 request head to dst and returns the
// extended slice: "METHOD target HTTP/1.1", each of h.Headers in order (Host
// among them, as BuildHead puts it first), and the blank line. It writes
// what h holds, without checking it, and allocates only when dst lacks
// capacity.
func AppendHead(dst []byte, h *head.Request) []byte {
	dst = append(dst, h.Method...)
	dst = append(dst, ' ')
	dst = append(dst, h.Target...)
	dst = append(dst, " HTTP/1.1\r\n"...)
	for _, f := range h.Headers {
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// line returns r's method and target, defaults applied, and the default
// fields its Header replaces.
func (r *Request) line() (method, target string, o overrides) {
	method, target = r.Method, r.Target
	if method == "" {
		method = "GET"
	}
	if target == "" {
		target = "/"
	}
	return method, target, scanOverrides(r.Header)
}

// overrides records which default fields a Request's Header replaces.
type overrides struct {
	host                                                   int // index of the first Host field, or -1
	userAgent, contentLength, transferEncoding, connection bool
}

// scanOverrides finds the fields of h that replace a default field.
func scanOverrides(h [][2]string) overrides {
	o := overrides{host: -1}
	for i, f := range h {
		switch name := f[0]; len(name) {
		case len("host"):
			if o.host < 0 && ascii.EqualLower(name, "host") {
				o.host = i
			}
		case len("user-agent"): // also len("connection")
			o.userAgent = o.userAgent || ascii.EqualLower(name, "user-agent")
			o.connection = o.connection || ascii.EqualLower(name, "connection")
		case len("content-length"):
			o.contentLength = o.contentLength || ascii.EqualLower(name, "content-length")
		case len("transfer-encoding"):
			o.transferEncoding = o.transferEncoding || ascii.EqualLower(name, "transfer-encoding")
		}
	}
	return o
}

// appendField appends "name: value" and CRLF.
func appendField(dst []byte, name, value string) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	dst = append(dst, value...)
	return append(dst, "\r\n"...)
}

// methodWantsBody reports whether a request with this method announces its
// body length even when the body is empty: RFC 9110 section 8.6 says a user
// agent should send Content-Length when the method defines a meaning for
// enclosed content, and some servers answer 411 without it.
func methodWantsBody(method string) bool {
	return method == "POST" || method == "PUT" || method == "PATCH"
}

// ValidateHeader reports whether a header name is a valid token and the
// value is valid field content: no control character but HTAB, so no CR,
// LF, NUL or DEL (RFC 9110 section 5.5, which lets recipients refuse the
// others too, as this package's ParseRequestHead and net/http do). It is
// meant for user input, before building a Request; its error says what is
// wrong and may allocate.
func ValidateHeader(name, value string) error {
	if name == "" {
		return errors.New("http1: empty header name: give a name before the colon")
	}
	if !IsToken(name) {
		return fmt.Errorf("http1: header name %q is not a token: use only letters, digits and !#$%%&'*+-.^_`|~", name)
	}
	for i := 0; i < len(value); i++ {
		if !textByte[value[i]] {
			return fmt.Errorf("http1: value of header %s has %q at byte %d: remove control characters (CR, LF, NUL, DEL and the like; tab is allowed)", name, value[i], i)
		}
	}
	return nil
}
