package websocket

import (
	"bytes"
	"testing"
)

// maskSlow is the RFC 6455 section 5.3 definition.
func maskSlow(p []byte, key [4]byte, pos int) {
	for i := range p {
		p[i] ^= key[(pos+i)%4]
	}
}

func TestMaskMatchesDefinition(t *testing.T) {
	for n := 0; n < 100; n++ {
		for pos := 0; pos < 4; pos++ {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(i * 7)
			}
			want := bytes.Clone(p)
			maskSlow(want, testKey, pos)
			if next := Mask(p, testKey, pos); next != (pos+n)%4 {
				t.Fatalf("n=%d pos=%d: next %d", n, pos, next)
			}
			if !bytes.Equal(p, want) {
				t.Fatalf("n=%d pos=%d: % x, want % x", n, pos, p, want)
			}
		}
	}
}

func TestMaskInPieces(t *testing.T) {
	p := bytes.Repeat([]byte("0123456789"), 50)
	want := bytes.Clone(p)
	maskSlow(want, testKey, 0)
	pos := 0
	for _, cut := range []int{3, 17, 1, 64, 200} {
		pos = Mask(p[:cut], testKey, pos)
		p = p[cut:]
		want = want[cut:]
	}
	Mask(p, testKey, pos)
	if !bytes.Equal(p, want) {
		t.Fatal("masking in pieces differs")
	}
}
