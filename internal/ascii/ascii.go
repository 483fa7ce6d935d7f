package ascii

import "unsafe"

// Lower returns c with A-Z mapped to a-z; any other byte is returned as is.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// EqualFold reports whether a and b are equal when A-Z and a-z are folded,
// as strings.EqualFold does for ASCII text. Bytes outside A-Z and a-z must
// match exactly.
func EqualFold[T string | []byte](a T, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] && Lower(a[i]) != Lower(b[i]) {
			return false
		}
	}
	return true
}

// EqualLower reports whether s equals lower once A-Z in s are folded to
// a-z. lower must hold no upper-case letter (it is a constant such as
// "content-length"); then EqualLower(s, lower) == EqualFold(s, lower), with
// one fold a byte instead of two.
func EqualLower[T string | []byte](s T, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if Lower(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// HasPrefixLower reports whether s begins with lower once A-Z in s are
// folded to a-z. lower must hold no upper-case letter, as for EqualLower.
func HasPrefixLower[T string | []byte](s T, lower string) bool {
	return len(s) >= len(lower) && EqualLower(s[:len(lower)], lower)
}

// LowerInPlace maps A-Z to a-z in b and returns b.
func LowerInPlace(b []byte) []byte {
	for i, c := range b {
		b[i] = Lower(c)
	}
	return b
}

// ToLower returns s with A-Z mapped to a-z. It returns s itself, without
// allocating, when s holds no upper-case letter.
func ToLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := make([]byte, len(s))
			copy(b, s)
			LowerInPlace(b[i:])
			// b is not kept anywhere else: one allocation, not two.
			return unsafe.String(&b[0], len(b))
		}
	}
	return s
}
