package quic

import "errors"

// MaxVarint is the largest value a variable-length integer can carry
// (RFC 9000 section 16): 2^62-1.
const MaxVarint = 1<<62 - 1

// errTruncated reports input that ends inside a field.
var errTruncated = errors.New("quic: truncated input")

// VarintLen returns the number of bytes AppendVarint uses for v: 1, 2, 4
// or 8. It returns 0 for a value above MaxVarint.
func VarintLen(v uint64) int {
	switch {
	case v < 1<<6:
		return 1
	case v < 1<<14:
		return 2
	case v < 1<<30:
		return 4
	case v <= MaxVarint:
		return 8
	}
	return 0
}

// AppendVarint appends v in its shortest variable-length encoding. It
// panics if v exceeds MaxVarint: a caller bounds what it sends.
func AppendVarint(b []byte, v uint64) []byte {
	return AppendVarintLen(b, v, VarintLen(v))
}

// AppendVarintLen appends v encoded in exactly n bytes (1, 2, 4 or 8), the
// form a Length field reserved before its value is known takes. It panics
// if n is not one of those sizes or v does not fit in n bytes.
func AppendVarintLen(b []byte, v uint64, n int) []byte {
	switch {
	case n == 1 && v < 1<<6:
		return append(b, byte(v))
	case n == 2 && v < 1<<14:
		return append(b, 0x40|byte(v>>8), byte(v))
	case n == 4 && v < 1<<30:
		return append(b, 0x80|byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	case n == 8 && v <= MaxVarint:
		return append(b, 0xc0|byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32),
			byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	panic("quic: varint does not fit its length")
}

// PutVarintLen writes v in exactly len(b) bytes (1, 2, 4 or 8) into b, the
// way a Length field reserved earlier is filled in. It panics like
// AppendVarintLen.
func PutVarintLen(b []byte, v uint64) {
	AppendVarintLen(b[:0], v, len(b))
}

// ParseVarint reads the variable-length integer at the start of b and
// returns its value and its encoded length. Any encoding is accepted, not
// only the shortest (RFC 9000 section 16 allows both). It returns an error
// if b ends inside the integer.
func ParseVarint(b []byte) (v uint64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, errTruncated
	}
	n = 1 << (b[0] >> 6)
	if len(b) < n {
		return 0, 0, errTruncated
	}
	v = uint64(b[0] & 0x3f)
	for _, c := range b[1:n] {
		v = v<<8 | uint64(c)
	}
	return v, n, nil
}
