package websocket

import (
	"bytes"
	"strings"
	"testing"
)

func TestCompressStripsTail(t *testing.T) {
	for _, bits := range []int{8, 9, 12, 15} {
		for _, p := range []string{"", "a", strings.Repeat("tail ", 1000)} {
			c := getCompressor(bits)
			z := c.compress([]byte("keep"), []byte(p))
			putCompressor(c, bits)
			if !bytes.HasPrefix(z, []byte("keep")) || bytes.HasSuffix(z, syncTail[:]) {
				t.Fatalf("bits %d, %d bytes: % x", bits, len(p), z)
			}
			got, err := inflate(nil, 0, z[4:], nil, len(p))
			if err != nil || string(got) != p {
				t.Fatalf("bits %d, %d bytes: %v", bits, len(p), err)
			}
		}
	}
}

func TestInflateLimits(t *testing.T) {
	z := stdDeflate(t, make([]byte, 100000))
	for _, limit := range []int{0, 1, 999, 65536, 99999} {
		out, err := inflate(nil, 0, z, nil, limit)
		if err != errTooBig || len(out) > limit+1 || cap(out) > limit+1 {
			t.Fatalf("limit %d: %v, len %d cap %d", limit, err, len(out), cap(out))
		}
	}
	if out, err := inflate([]byte("prefix"), 6, z, nil, 100000); err != nil || len(out) != 100006 {
		t.Fatalf("exact limit after a prefix: %v %d", err, len(out))
	}
}

func TestWindowBitsRespected(t *testing.T) {
	// With a 9-bit window a compressor may not refer more than 512 bytes
	// back. A 600-byte block repeated after 600 bytes of noise would be a
	// cheap match at distance 1200; with the window it must be spelled out
	// again, so the output is much larger than a 15-bit compressor's.
	block := []byte(strings.Repeat("0123456789abcdef", 40))[:600]
	noise := make([]byte, 600)
	for i := range noise {
		noise[i] = byte(i*131 ^ i>>3)
	}
	p := bytes.Join([][]byte{block, noise, block}, nil)
	sizes := map[int]int{}
	for _, bits := range []int{9, 15} {
		c := getCompressor(bits)
		z := c.compress(nil, p)
		putCompressor(c, bits)
		out, err := inflate(nil, 0, z, nil, len(p))
		if err != nil || !bytes.Equal(out, p) {
			t.Fatalf("bits %d: %v", bits, err)
		}
		sizes[bits] = len(z)
	}
	t.Logf("compressed sizes by window bits: %v", sizes)
	if sizes[9] <= sizes[15] {
		t.Errorf("the 9-bit window compressed as well as the 15-bit one: %v", sizes)
	}
}
