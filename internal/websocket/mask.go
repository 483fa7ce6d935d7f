package websocket

import (
	"encoding/binary"
	"math/bits"
)

// Mask XORs p in place with the masking key (RFC 6455 section 5.3), starting
// at position pos of the key's 4-byte cycle, and returns the position after
// p, so a payload split across calls is masked with Mask(b, key, Mask(a, key,
// 0)). It works eight bytes at a time.
func Mask(p []byte, key [4]byte, pos int) int {
	pos &= 3
	next := (pos + len(p)) & 3
	// Byte at a time until the key is rotated to start at p's next byte,
	// then whole words with the key laid out twice.
	if len(p) < 16 {
		for i := range p {
			p[i] ^= key[(pos+i)&3]
		}
		return next
	}
	k32 := binary.LittleEndian.Uint32(key[:])
	k32 = bits.RotateLeft32(k32, -8*pos) // byte pos of the key first
	k := uint64(k32) | uint64(k32)<<32
	for len(p) >= 32 {
		v := binary.LittleEndian.Uint64(p)
		binary.LittleEndian.PutUint64(p, v^k)
		v = binary.LittleEndian.Uint64(p[8:])
		binary.LittleEndian.PutUint64(p[8:], v^k)
		v = binary.LittleEndian.Uint64(p[16:])
		binary.LittleEndian.PutUint64(p[16:], v^k)
		v = binary.LittleEndian.Uint64(p[24:])
		binary.LittleEndian.PutUint64(p[24:], v^k)
		p = p[32:]
	}
	for len(p) >= 8 {
		v := binary.LittleEndian.Uint64(p)
		binary.LittleEndian.PutUint64(p, v^k)
		p = p[8:]
	}
	for i := range p {
		p[i] ^= byte(k >> (8 * i))
	}
	return next
}
