package http1

import "github.com/gust-http/gust/internal/ascii"

// Byte classes of RFC 9110 section 5.6.2 (tokens) and 5.5 (field values),
// as lookup tables so that validation is one load per byte.
var (
	// tokenByte[c] is true when c is a tchar.
	tokenByte = func() (t [256]bool) {
		for c := '0'; c <= '9'; c++ {
			t[c] = true
		}
		for c := 'a'; c <= 'z'; c++ {
			t[c] = true
			t[c-'a'+'A'] = true
		}
		for _, c := range "!#$%&'*+-.^_`|~" {
			t[c] = true
		}
		return t
	}()

	// textByte[c] is true when c may appear in a field value or reason
	// phrase: HTAB, SP, VCHAR or obs-text. Every other control byte,
	// notably NUL and a CR that is not part of a line ending, is refused.
	textByte = func() (t [256]bool) {
		t['\t'] = true
		for c := 0x20; c < 0x100; c++ {
			t[c] = c != 0x7f
		}
		return t
	}()
)

// IsToken reports whether b is a non-empty token (RFC 9110 section 5.6.2):
// a method or a field name.
func IsToken[T string | []byte](b T) bool {
	if len(b) == 0 {
		return false
	}
	for i := 0; i < len(b); i++ {
		if !tokenByte[b[i]] {
			return false
		}
	}
	return true
}

// isText reports whether every byte of b may appear in a field value.
func isText(b []byte) bool {
	for _, c := range b {
		if !textByte[c] {
			return false
		}
	}
	return true
}

// EqualFold reports whether a and b are equal ignoring ASCII case (and
// only ASCII: other bytes must match exactly). It is ascii.EqualFold, kept
// under this name for the server, load and replay code that compares field
// names.
func EqualFold[T string | []byte](a T, b string) bool { return ascii.EqualFold(a, b) }

// isOWS reports whether c is optional whitespace (SP or HTAB).
func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// trimOWS returns b without leading and trailing SP and HTAB.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && isOWS(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isOWS(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// nextElement splits the comma-separated list b (RFC 9110 section 5.6.1)
// into its first element, trimmed of OWS, and the rest after the comma;
// more is false when elem was the last element. Empty elements are returned
// as such: callers decide whether they count. The values it splits are
// short, so a plain loop beats bytes.IndexByte's call overhead.
func nextElement(b []byte) (elem, rest []byte, more bool) {
	for i, c := range b {
		if c == ',' {
			return trimOWS(b[:i]), b[i+1:], true
		}
	}
	return trimOWS(b), nil, false
}

// textEnd returns the offset of the first byte at or after i that may not
// appear in a field value, or len(b). (An eight-bytes-at-a-time version was
// measured slower on typical heads: values are short and end in CR.)
func textEnd(b []byte, i int) int {
	for i < len(b) && textByte[b[i]] {
		i++
	}
	return i
}
