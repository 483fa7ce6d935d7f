package quic

// MaxPacketNumber is the largest packet number (RFC 9000 section 12.3).
const MaxPacketNumber = 1<<62 - 1

// PacketNumberLen returns how many bytes (1 to 4) the packet number pn
// needs on the wire when the peer has acknowledged packets up to
// largestAcked, or -1 if it has acknowledged none (RFC 9000 section 17.1
// and appendix A.2): enough for twice the distance, so the peer decodes
// it whatever it saw last.
func PacketNumberLen(pn uint64, largestAcked int64) int {
	var unacked uint64
	if largestAcked < 0 {
		unacked = pn + 1
	} else {
		unacked = pn - uint64(largestAcked)
	}
	for n := 1; n < 4; n++ {
		if 2*unacked <= 1<<(8*n) {
			return n
		}
	}
	return 4
}

// AppendPacketNumber appends the n low bytes of pn, big-endian: the
// truncated packet number field, n being 1 to 4.
func AppendPacketNumber(b []byte, pn uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(pn>>(8*i)))
	}
	return b
}

// readPacketNumber reads a truncated packet number of len(b) bytes.
func readPacketNumber(b []byte) uint64 {
	var pn uint64
	for _, c := range b {
		pn = pn<<8 | uint64(c)
	}
	return pn
}

// DecodePacketNumber recovers the full packet number from its truncated
// form, bits long (8, 16, 24 or 32), given the largest packet number
// received in the same number space, or -1 if none (RFC 9000 appendix A.3):
// the candidate closest to the next expected number.
func DecodePacketNumber(largest int64, truncated uint64, bits int) uint64 {
	expected := uint64(largest + 1)
	win := uint64(1) << bits
	hwin := win / 2
	mask := win - 1
	candidate := expected&^mask | truncated
	switch {
	case candidate+hwin <= expected && candidate < MaxPacketNumber+1-win:
		return candidate + win
	case candidate > expected+hwin && candidate >= win:
		return candidate - win
	}
	return candidate
}
