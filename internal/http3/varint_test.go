package http3

import (
	"bytes"
	"testing"
)

func TestVarintRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 16383, 16384, 1<<30 - 1, 1 << 30, MaxVarint} {
		b := AppendVarint(nil, v)
		if len(b) != VarintLen(v) {
			t.Errorf("%d: %d bytes, VarintLen says %d", v, len(b), VarintLen(v))
		}
		got, n := ParseVarint(b)
		if got != v || n != len(b) {
			t.Errorf("%d: parsed %d in %d bytes", v, got, n)
		}
		if _, n := ParseVarint(b[:len(b)-1]); n != 0 {
			t.Errorf("%d: a truncated encoding parsed", v)
		}
	}
}

func TestVarintRFCExamples(t *testing.T) {
	// RFC 9000 Appendix A.1's sample encodings, the non-minimal one too.
	for _, c := range []struct {
		hex []byte
		v   uint64
	}{
		{[]byte{0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c}, 151288809941952652},
		{[]byte{0x9d, 0x7f, 0x3e, 0x7d}, 494878333},
		{[]byte{0x7b, 0xbd}, 15293},
		{[]byte{0x25}, 37},
		{[]byte{0x40, 0x25}, 37},
	} {
		v, n := ParseVarint(c.hex)
		if v != c.v || n != len(c.hex) {
			t.Errorf("% x: got %d in %d bytes, want %d", c.hex, v, n, c.v)
		}
		if len(c.hex) == VarintLen(c.v) && !bytes.Equal(AppendVarint(nil, c.v), c.hex) {
			t.Errorf("%d encodes as % x", c.v, AppendVarint(nil, c.v))
		}
	}
}

func TestVarintAboveMaxPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for 2^62")
		}
	}()
	AppendVarint(nil, MaxVarint+1)
}
