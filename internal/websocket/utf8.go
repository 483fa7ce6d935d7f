package websocket

import "unicode/utf8"

// UTF8 validates UTF-8 written to it in pieces that may split a code point,
// as a text message arrives in fragments (RFC 6455 section 8.1). It rejects
// what unicode/utf8.Valid rejects: overlong forms, surrogates, code points
// above U+10FFFF. Write fails as soon as a byte makes the input invalid,
// even in the middle of a code point. The zero value is ready; it holds three
// bytes of state.
type UTF8 struct {
	need   uint8 // continuation bytes still owed by the code point in progress
	lo, hi uint8 // the range the next continuation byte must fall in
	bad    bool
}

// Write validates the next piece and reports whether the input so far is a
// valid prefix of UTF-8. Once it returns false it keeps doing so until Reset.
func (v *UTF8) Write(p []byte) bool {
	if v.bad {
		return false
	}
	i := v.continueSeq(p)
	if i < 0 {
		v.bad = true
		return false
	}
	p = p[i:]
	if len(p) == 0 {
		return true
	}
	// Find a code point cut off at the end: a lead byte among the last three
	// whose sequence runs past the end.
	end := len(p)
	for j := len(p) - 1; j >= 0 && j >= len(p)-3; j-- {
		b := p[j]
		if b < 0x80 {
			break
		}
		if b >= 0xc0 {
			if size := leadSize(b); size > 0 && len(p)-j < size {
				end = j
			}
			break
		}
	}
	if !utf8.Valid(p[:end]) {
		v.bad = true
		return false
	}
	if end == len(p) {
		return true
	}
	v.start(p[end])
	if v.continueSeq(p[end+1:]) < 0 {
		v.bad = true
		return false
	}
	return true
}

// Done reports whether everything written is valid UTF-8 ending on a whole
// code point: the check at the end of a message.
func (v *UTF8) Done() bool { return !v.bad && v.need == 0 }

// Reset makes v ready for a new input.
func (v *UTF8) Reset() { *v = UTF8{} }

// continueSeq consumes the continuation bytes the code point in progress
// still needs from the start of p and returns how many it took, or -1 when a
// byte is out of range.
func (v *UTF8) continueSeq(p []byte) int {
	i := 0
	for v.need > 0 && i < len(p) {
		b := p[i]
		if b < v.lo || b > v.hi {
			return -1
		}
		v.lo, v.hi = 0x80, 0xbf
		v.need--
		i++
	}
	return i
}

// start records the lead byte b of a multi-byte code point (leadSize(b) > 0).
func (v *UTF8) start(b byte) {
	v.lo, v.hi = 0x80, 0xbf
	switch {
	case b < 0xe0:
		v.need = 1
	case b < 0xf0:
		v.need = 2
		if b == 0xe0 {
			v.lo = 0xa0 // no overlong three-byte forms
		} else if b == 0xed {
			v.hi = 0x9f // no surrogates
		}
	default:
		v.need = 3
		if b == 0xf0 {
			v.lo = 0x90 // no overlong four-byte forms
		} else if b == 0xf4 {
			v.hi = 0x8f // nothing above U+10FFFF
		}
	}
}

// leadSize is the length of the sequence lead byte b starts, 0 when b can
// never start one (0xc0, 0xc1, 0xf5-0xff).
func leadSize(b byte) int {
	switch {
	case b >= 0xc2 && b <= 0xdf:
		return 2
	case b >= 0xe0 && b <= 0xef:
		return 3
	case b >= 0xf0 && b <= 0xf4:
		return 4
	}
	return 0
}
