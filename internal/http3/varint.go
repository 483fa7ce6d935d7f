package http3

// QUIC variable-length integers (RFC 9000 section 16), which HTTP/3 uses for
// frame types and lengths, stream types, settings and IDs. This is a small
// private copy while internal/quic, their future home, is being written;
// once it exports them this file goes.

// MaxVarint is the largest value a variable-length integer holds, 2^62-1.
const MaxVarint = 1<<62 - 1

// VarintLen returns the bytes the shortest encoding of v takes: 1, 2, 4 or
// 8. It returns 8 for values above MaxVarint, which AppendVarint refuses.
func VarintLen(v uint64) int {
	switch {
	case v < 1<<6:
		return 1
	case v < 1<<14:
		return 2
	case v < 1<<30:
		return 4
	}
	return 8
}

// AppendVarint appends the shortest encoding of v. It panics if v exceeds
// MaxVarint: every value HTTP/3 sends is bounded well below it, so a larger
// one is a bug in the caller.
func AppendVarint(b []byte, v uint64) []byte {
	switch {
	case v < 1<<6:
		return append(b, byte(v))
	case v < 1<<14:
		return append(b, 0x40|byte(v>>8), byte(v))
	case v < 1<<30:
		return append(b, 0x80|byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	case v <= MaxVarint:
		return append(b, 0xc0|byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32),
			byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	panic("http3: varint value above 2^62-1")
}

// ParseVarint decodes the variable-length integer at the start of b. It
// returns the value and the bytes it took, or n == 0 when b holds only part
// of it. Encodings longer than needed are accepted, as RFC 9000 allows.
func ParseVarint(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	n = 1 << (b[0] >> 6)
	if len(b) < n {
		return 0, 0
	}
	v = uint64(b[0] & 0x3f)
	for i := 1; i < n; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, n
}
