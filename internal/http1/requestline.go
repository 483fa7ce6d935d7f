package http1

import (
	"bytes"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/head"
)

// targetByte[c] is true when c may appear in a request-target: VCHAR except
// '#', which would start a fragment, and a fragment is never sent (RFC 9112
// section 3.2). Characters RFC 3986 does not allow, such as '|' and '{', are
// let through because browsers send them unescaped in queries; SP, control
// bytes and bytes from 0x7f up are refused.
var targetByte = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = c != '#'
	}
	return t
}()

// parseRequestLine skips the empty lines before the request line at the
// start of b, parses the request line into h and returns the offset after
// it. It reports ErrBadRequestLine as soon as a byte cannot belong to a valid
// request line, and ErrIncomplete if b ends first.
//
// The request-target must have the form its method calls for (RFC 9112
// section 3.2): the asterisk-form "*" only with OPTIONS, the authority-form
// host:port only and always with CONNECT, otherwise the origin-form (an
// absolute path with an optional query) or the absolute-form with an http or
// https scheme. An origin server has no use for other schemes, and RFC 9110
// section 4.2.4 says to treat userinfo in an http(s) URI as an error.
// Percent-encoding in the path must be well formed; the query is left to the
// application, as browsers send a lone '%' there.
func parseRequestLine(h *head.Request, b []byte) (int, error) {
	start := 0
	for {
		if start+1 >= len(b) {
			if start == len(b) || b[start] == '\r' {
				return 0, ErrIncomplete
			}
			break
		}
		if b[start] != '\r' {
			break
		}
		if b[start+1] != '\n' {
			return 0, ErrBadRequestLine
		}
		start += 2
	}

	i := start
	for i < len(b) && tokenByte[b[i]] {
		i++
	}
	if i == len(b) {
		return 0, ErrIncomplete
	}
	if i == start || b[i] != ' ' {
		return 0, ErrBadRequestLine
	}
	method := b[start:i]

	i++
	t := i
	for i < len(b) && targetByte[b[i]] {
		i++
	}
	if i == len(b) {
		return 0, ErrIncomplete
	}
	if i == t || b[i] != ' ' { // no target, two spaces, or no version: HTTP/0.9
		return 0, ErrBadRequestLine
	}
	target := b[t:i]

	// "HTTP/" DIGIT "." DIGIT CRLF, where the version is case-sensitive
	// (RFC 9112 section 2.3).
	i++
	const pattern = "HTTP/9.9\r\n"
	for k := 0; k < len(pattern); k++ {
		if i+k == len(b) {
			return 0, ErrIncomplete
		}
		if c := b[i+k]; c != pattern[k] && !(pattern[k] == '9' && isDigit(c)) {
			return 0, ErrBadRequestLine
		}
	}
	if b[i+5] != '1' {
		return 0, ErrBadVersion
	}
	h.Method = method
	h.Major = 1
	h.Minor = int(b[i+7] - '0')
	if err := parseTarget(h, target); err != nil {
		return 0, err
	}
	return i + len(pattern), nil
}

// parseTarget checks that t, whose bytes are all targetBytes, has the form
// h.Method calls for and sets h.Target, h.Path and h.Query, and h.Host for
// the forms that carry an authority.
func parseTarget(h *head.Request, t []byte) error {
	h.Target, h.Path = t, t
	connect := string(h.Method) == "CONNECT"
	switch {
	case t[0] == '/' && !connect:
		if q := bytes.IndexByte(t, '?'); q >= 0 {
			h.Path, h.Query = t[:q], t[q+1:]
		}
		if !validPercent(h.Path) {
			return ErrBadRequestLine
		}
	case len(t) == 1 && t[0] == '*':
		if string(h.Method) != "OPTIONS" {
			return ErrBadRequestLine
		}
	case connect:
		// RFC 9112 section 3.2.3: uri-host ":" port, and the port must be
		// given (RFC 9110 section 9.3.6).
		if !validAuthority(t, true) {
			return ErrBadRequestLine
		}
		h.Host = t
	default:
		host, ok := absoluteAuthority(t)
		if !ok {
			return ErrBadRequestLine
		}
		h.Host = host
	}
	return nil
}

// absoluteAuthority returns the authority of t if it is an http or https
// absolute-URI with a non-empty host (RFC 9110 section 4.2.1), no userinfo
// and well-formed percent-encoding in the path.
func absoluteAuthority(t []byte) ([]byte, bool) {
	var rest []byte
	switch {
	case len(t) > len("http://") && ascii.EqualLower(t[:len("http://")], "http://"):
		rest = t[len("http://"):]
	case len(t) > len("https://") && ascii.EqualLower(t[:len("https://")], "https://"):
		rest = t[len("https://"):]
	default:
		return nil, false
	}
	end := len(rest)
	for i, c := range rest {
		if c == '/' || c == '?' {
			end = i
			break
		}
	}
	host, path := rest[:end], rest[end:]
	if q := bytes.IndexByte(path, '?'); q >= 0 {
		path = path[:q]
	}
	if len(host) == 0 || !validAuthority(host, false) || !validPercent(path) {
		return nil, false
	}
	return host, true
}

// validPercent reports whether every '%' in b starts a pct-encoded triplet
// (RFC 3986 section 2.1).
func validPercent(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '%')
		if i < 0 {
			return true
		}
		if i+2 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) {
			return false
		}
		b = b[i+3:]
	}
}

// isHex reports whether c is an ASCII hexadecimal digit.
func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Parts of a request line, for limitEndsIn.
const (
	beforeMethod = iota // in the empty lines before the request line
	inMethod
	inTarget
	inVersion
)

// limitEndsIn tells in which part of the request line b ends, b being a
// request line that parseRequestLine found incomplete. It runs only when the
// head limit is reached, to choose the status.
func limitEndsIn(b []byte) int {
	i := 0
	for i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
		i += 2
	}
	sp := bytes.IndexByte(b[i:], ' ')
	switch {
	case i == len(b) || b[i] == '\r':
		return beforeMethod
	case sp < 0:
		return inMethod
	case bytes.IndexByte(b[i+sp+1:], ' ') < 0:
		return inTarget
	}
	return inVersion
}
