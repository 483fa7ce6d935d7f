package http1

import (
	"net/http"
	"strconv"
)

// statusLines holds "HTTP/1.1 NNN Reason\r\n" for every code 100-999, built
// once so that writing a status line is a copy.
var statusLines = func() [1000][]byte {
	var lines [1000][]byte
	for code := 100; code < 1000; code++ {
		line := "HTTP/1.1 " + strconv.Itoa(code) + " " + http.StatusText(code) + "\r\n"
		lines[code] = []byte(line)
	}
	return lines
}()

// continueLine is the interim response that asks a client to send the body
// it held back (Expect: 100-continue).
const continueLine = "HTTP/1.1 100 Continue\r\n\r\n"

// BodyAllowed reports whether a response with this status may carry a body
// (RFC 9110 section 6.4.1).
func BodyAllowed(code int) bool {
	return code >= 200 && code != 204 && code != 304
}

// Reply is the head of a response to write: AppendReply turns it into
// bytes. The zero value is not useful: Status must be 100 to 999.
type Reply struct {
	Status int
	// Server adds "Server: gust" (the handler did not set one).
	Server bool
	// Date is the Date field's value (an IMF-fixdate).
	Date []byte
	// Header holds the handler's fields, "Name: value\r\n" each.
	Header []byte
	// Fixed holds fields the server adds to every response (Alt-Svc), in
	// the same form.
	Fixed []byte
	// HasContentType says Header sets Content-Type; otherwise a response
	// with a body is sent as text/plain.
	HasContentType bool
	// Close adds "Connection: close"; KeepAlive (for an HTTP/1.0 client)
	// adds "Connection: keep-alive" when Close is false.
	Close, KeepAlive bool
	// Length is the body's Content-Length; below zero, the body follows in
	// chunks (Transfer-Encoding: chunked).
	Length int
	// Unframed sends neither Content-Length nor Transfer-Encoding: the body
	// ends when the connection does (streaming to an HTTP/1.0 client).
	Unframed bool
}

// AppendReply appends the status line and header section of r to dst.
func AppendReply(dst []byte, r *Reply) []byte {
	dst = append(dst, statusLines[r.Status]...)
	if r.Server {
		dst = append(dst, "Server: gust\r\n"...)
	}
	dst = append(dst, "Date: "...)
	dst = append(dst, r.Date...)
	dst = append(dst, "\r\n"...)
	dst = append(dst, r.Header...)
	dst = append(dst, r.Fixed...)
	allowed := BodyAllowed(r.Status)
	if allowed && !r.HasContentType && r.Length != 0 {
		dst = append(dst, "Content-Type: text/plain; charset=utf-8\r\n"...)
	}
	switch {
	case r.Close:
		dst = append(dst, "Connection: close\r\n"...)
	case r.KeepAlive:
		dst = append(dst, "Connection: keep-alive\r\n"...)
	}
	if allowed && !r.Unframed {
		if r.Length < 0 {
			dst = append(dst, "Transfer-Encoding: chunked\r\n"...)
		} else {
			dst = append(dst, "Content-Length: "...)
			dst = strconv.AppendInt(dst, int64(r.Length), 10)
			dst = append(dst, "\r\n"...)
		}
	}
	return append(dst, "\r\n"...)
}

// AppendChunk appends p as one chunk of a chunked body. An empty p would
// end the body: callers skip it.
func AppendChunk(dst, p []byte) []byte {
	dst = strconv.AppendInt(dst, int64(len(p)), 16)
	dst = append(dst, "\r\n"...)
	dst = append(dst, p...)
	return append(dst, "\r\n"...)
}

// AppendLastChunk appends the chunk that ends a chunked body, without
// trailers.
func AppendLastChunk(dst []byte) []byte { return append(dst, "0\r\n\r\n"...) }

// AppendContinue appends the interim response "100 Continue".
func AppendContinue(dst []byte) []byte { return append(dst, continueLine...) }

// AppendError appends a minimal plain-text response for status (its reason
// phrase as the body) that closes the connection: the answer to a request
// that cannot be served.
func AppendError(dst []byte, status int) []byte {
	line := statusLines[status]
	text := line[len("HTTP/1.1 ") : len(line)-len("\r\n")]
	dst = append(dst, line...)
	dst = append(dst, "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(text)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, text...)
}

// ValidField reports whether a response header field can be written as
// given: a name of visible characters other than ':' and a value without
// CR, LF or NUL, so that user input cannot split the response.
func ValidField(name, value []byte) bool {
	if len(name) == 0 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if b := name[i]; b <= ' ' || b >= 0x7f || b == ':' {
			return false
		}
	}
	return ValidFieldValue(value)
}

// ValidFieldValue reports whether a response header value can be written
// as given: without CR, LF or NUL.
func ValidFieldValue(value []byte) bool {
	for i := 0; i < len(value); i++ {
		if b := value[i]; b == '\r' || b == '\n' || b == 0 {
			return false
		}
	}
	return true
}

// ParseLength parses a decimal Content-Length value of up to 18 digits, or
// returns -1.
func ParseLength(b []byte) int64 {
	if len(b) == 0 || len(b) > 18 {
		return -1
	}
	var n int64
	for _, d := range b {
		if d < '0' || d > '9' {
			return -1
		}
		n = n*10 + int64(d-'0')
	}
	return n
}
