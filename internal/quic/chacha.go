package quic

import (
	"encoding/binary"
	"math/bits"
)

// chachaMask computes ChaCha20-Poly1305's header protection mask (RFC
// 9001 section 5.4.4): the first 5 bytes of the ChaCha20 key stream for
// the header protection key, with the sample's first 4 bytes as the
// block counter (little-endian) and its other 12 as the nonce. It is
// ChaCha20's block function (RFC 8439 section 2.3) written out for one
// block, so that a packet costs no cipher object.
func chachaMask(mask *[5]byte, key *[32]byte, sample []byte) {
	var s [16]uint32
	s[0], s[1], s[2], s[3] = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 // "expand 32-byte k"
	for i := range 8 {
		s[4+i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	s[12] = binary.LittleEndian.Uint32(sample[0:4])
	s[13] = binary.LittleEndian.Uint32(sample[4:8])
	s[14] = binary.LittleEndian.Uint32(sample[8:12])
	s[15] = binary.LittleEndian.Uint32(sample[12:16])
	x := s
	for range 10 { // 20 rounds: a column round and a diagonal round each time
		quarterRound(&x, 0, 4, 8, 12)
		quarterRound(&x, 1, 5, 9, 13)
		quarterRound(&x, 2, 6, 10, 14)
		quarterRound(&x, 3, 7, 11, 15)
		quarterRound(&x, 0, 5, 10, 15)
		quarterRound(&x, 1, 6, 11, 12)
		quarterRound(&x, 2, 7, 8, 13)
		quarterRound(&x, 3, 4, 9, 14)
	}
	// The key stream is the state added to the rounds' output, serialized
	// little-endian; the mask needs its first word and one byte more.
	var w [8]byte
	binary.LittleEndian.PutUint32(w[0:], x[0]+s[0])
	binary.LittleEndian.PutUint32(w[4:], x[1]+s[1])
	copy(mask[:], w[:5])
}

// quarterRound is ChaCha's quarter round on words a, b, c and d of x.
func quarterRound(x *[16]uint32, a, b, c, d int) {
	x[a] += x[b]
	x[d] = bits.RotateLeft32(x[d]^x[a], 16)
	x[c] += x[d]
	x[b] = bits.RotateLeft32(x[b]^x[c], 12)
	x[a] += x[b]
	x[d] = bits.RotateLeft32(x[d]^x[a], 8)
	x[c] += x[d]
	x[b] = bits.RotateLeft32(x[b]^x[c], 7)
}
