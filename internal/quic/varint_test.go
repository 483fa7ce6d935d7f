package quic

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// The examples of RFC 9000 appendix A.1.
var varintExamples = []struct {
	hex   string
	value uint64
}{
	{"c2197c5eff14e88c", 151288809941952652},
	{"9d7f3e7d", 494878333},
	{"7bbd", 15293},
	{"25", 37},
	{"4025", 37},
}

func TestParseVarintRFCExamples(t *testing.T) {
	for _, tc := range varintExamples {
		b, _ := hex.DecodeString(tc.hex)
		v, n, err := ParseVarint(append(b, 0xff)) // a trailing byte is not read
		if err != nil || v != tc.value || n != len(b) {
			t.Errorf("ParseVarint(%s) = %d, %d, %v; want %d, %d", tc.hex, v, n, err, tc.value, len(b))
		}
		for i := range len(b) {
			if _, _, err := ParseVarint(b[:i]); err == nil {
				t.Errorf("ParseVarint(%s[:%d]) accepted a truncated integer", tc.hex, i)
			}
		}
	}
}

func TestAppendVarintRFCExamples(t *testing.T) {
	for _, tc := range varintExamples[:4] { // the shortest encodings
		want, _ := hex.DecodeString(tc.hex)
		if got := AppendVarint(nil, tc.value); !bytes.Equal(got, want) {
			t.Errorf("AppendVarint(%d) = %x, want %s", tc.value, got, tc.hex)
		}
	}
	if got := AppendVarintLen(nil, 37, 2); !bytes.Equal(got, []byte{0x40, 0x25}) {
		t.Errorf("AppendVarintLen(37, 2) = %x, want 4025", got)
	}
}

func TestVarintLenBounds(t *testing.T) {
	for _, tc := range []struct {
		v uint64
		n int
	}{
		{0, 1}, {63, 1}, {64, 2}, {16383, 2}, {16384, 4},
		{1<<30 - 1, 4}, {1 << 30, 8}, {MaxVarint, 8}, {MaxVarint + 1, 0},
	} {
		if got := VarintLen(tc.v); got != tc.n {
			t.Errorf("VarintLen(%d) = %d, want %d", tc.v, got, tc.n)
		}
	}
}

func TestPutVarintLen(t *testing.T) {
	b := []byte{0, 0}
	PutVarintLen(b, 1182)
	if !bytes.Equal(b, []byte{0x44, 0x9e}) {
		t.Errorf("PutVarintLen(1182) = %x, want 449e", b)
	}
}

func TestAppendVarintPanicsAboveMax(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("AppendVarint(MaxVarint+1) did not panic")
		}
	}()
	AppendVarint(nil, MaxVarint+1)
}

func FuzzVarint(f *testing.F) {
	for _, tc := range varintExamples {
		b, _ := hex.DecodeString(tc.hex)
		f.Add(b, tc.value)
	}
	f.Fuzz(func(t *testing.T, in []byte, v uint64) {
		if pv, n, err := ParseVarint(in); err == nil {
			if n < 1 || n > len(in) || pv > MaxVarint {
				t.Fatalf("ParseVarint(%x) = %d, %d", in, pv, n)
			}
		}
		v &= MaxVarint
		b := AppendVarint(nil, v)
		got, n, err := ParseVarint(b)
		if err != nil || got != v || n != len(b) || n != VarintLen(v) {
			t.Fatalf("round trip of %d: %x -> %d, %d, %v", v, b, got, n, err)
		}
	})
}

func BenchmarkParseVarint(b *testing.B) {
	in := []byte{0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseVarint(in); err != nil {
			b.Fatal(err)
		}
	}
}
