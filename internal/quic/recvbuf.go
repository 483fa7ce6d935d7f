package quic

// recvBuf is the receiving half of a stream, or of an encryption level's
// crypto stream: bytes that arrive in any order are put in place, and the
// contiguous prefix is readable. The buffer is reused as it is read.
type recvBuf struct {
	buf      []byte // buf[i] is the byte at offset readOff+i; holes until have says
	readOff  uint64 // the offset of the next byte to read
	have     spanSet
	final    uint64 // the final size, known when hasFinal
	hasFinal bool
}

// highest returns the offset after the highest byte received.
func (r *recvBuf) highest() uint64 { return r.readOff + uint64(len(r.buf)) }

// push puts data at offset off; bytes already read are skipped.
func (r *recvBuf) push(off uint64, data []byte) {
	end := off + uint64(len(data))
	if end <= r.readOff {
		return
	}
	if off < r.readOff {
		data = data[r.readOff-off:]
		off = r.readOff
	}
	if need := int(end - r.readOff); need > len(r.buf) {
		if need > cap(r.buf) {
			nb := make([]byte, need, max(need, 2*cap(r.buf)))
			copy(nb, r.buf)
			r.buf = nb
		} else {
			r.buf = r.buf[:need]
		}
	}
	copy(r.buf[off-r.readOff:], data)
	r.have.add(off, end)
}

// readable returns how many bytes can be read now.
func (r *recvBuf) readable() int {
	if len(r.have) > 0 && r.have[0].lo <= r.readOff {
		return int(r.have[0].hi - r.readOff)
	}
	return 0
}

// peek returns the readable bytes, valid until the next push or discard.
func (r *recvBuf) peek() []byte { return r.buf[:r.readable()] }

// discard drops the first n readable bytes.
func (r *recvBuf) discard(n int) {
	if n == 0 {
		return
	}
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	r.have.remove(r.readOff, r.readOff+uint64(n))
	r.readOff += uint64(n)
}

// read copies readable bytes into p.
func (r *recvBuf) read(p []byte) int {
	n := copy(p, r.peek())
	r.discard(n)
	return n
}

// finished reports whether every byte up to the final size was read.
func (r *recvBuf) finished() bool { return r.hasFinal && r.readOff == r.final }
