package quic

// recvBuf is the receiving half of a stream, or of an encryption level's
// crypto stream: bytes that arrive in any order are put in place, and the
// contiguous prefix is readable. The contiguous bytes live in one buffer,
// reused as it is read; bytes past a hole wait in chunks of their own,
// one per run of bytes received, so that what a stream holds follows what
// arrived, not how far ahead it reached (one byte at the end of a window
// costs a byte, not the window).
type recvBuf struct {
	buf      []byte      // buf[i] is the byte at offset readOff+i: the contiguous bytes
	later    []recvChunk // runs of bytes past a hole, in order, disjoint and not adjacent
	readOff  uint64      // the offset of the next byte to read
	high     uint64      // the offset after the highest byte received
	have     spanSet     // the runs received and not read: buf's, then each chunk's
	final    uint64      // the final size, known when hasFinal
	hasFinal bool
}

// recvChunk is a run of bytes received past a hole, from offset off.
type recvChunk struct {
	off  uint64
	data []byte
}

// maxRecvGaps bounds the runs of bytes a stream keeps past a hole. Each
// lost or reordered packet makes at most one; a peer that makes more
// (bytes sprinkled over its window, which flow control allows) would make
// this end keep a chunk for every few bytes it sends.
const maxRecvGaps = 256

// errTooManyGaps closes a connection whose peer left more holes in a
// stream than maxRecvGaps.
var errTooManyGaps = &TransportError{Code: InternalError, Reason: "too many holes in a stream's data"}

// highest returns the offset after the highest byte received.
func (r *recvBuf) highest() uint64 { return max(r.high, r.readOff) }

// push puts data at offset off; bytes already received are skipped.
func (r *recvBuf) push(off uint64, data []byte) error {
	end := off + uint64(len(data))
	r.high = max(r.high, end)
	contig := r.readOff + uint64(len(r.buf))
	if end <= contig {
		return nil
	}
	if off < contig {
		data = data[contig-off:]
		off = contig
	}
	r.have.add(off, end)
	if off > contig {
		return r.keepLater(off, data)
	}
	r.buf = append(r.buf, data...)
	// Chunks the new bytes reach join the contiguous ones.
	for len(r.later) > 0 {
		contig = r.readOff + uint64(len(r.buf))
		c := r.later[0]
		if c.off > contig {
			break
		}
		if cend := c.off + uint64(len(c.data)); cend > contig {
			r.buf = append(r.buf, c.data[contig-c.off:]...)
		}
		r.later = r.later[:copy(r.later, r.later[1:])]
	}
	return nil
}

// keepLater puts data, past a hole, in the chunk of the run of received
// bytes that now holds it (have already has it): the chunks that run
// joins become one.
func (r *recvBuf) keepLater(off uint64, data []byte) error {
	lo, hi := off, off+uint64(len(data))
	for _, s := range r.have {
		if s.lo <= off && off < s.hi {
			lo, hi = s.lo, s.hi
			break
		}
	}
	i := 0
	for i < len(r.later) && r.later[i].off < lo {
		i++
	}
	j := i
	for j < len(r.later) && r.later[j].off < hi {
		j++
	}
	c := recvChunk{off: lo}
	if i < j && r.later[i].off == lo {
		c.data = r.later[i].data
	}
	n := int(hi - lo)
	if n > cap(c.data) {
		nd := make([]byte, n, max(n, 2*cap(c.data)))
		copy(nd, c.data)
		c.data = nd
	} else {
		c.data = c.data[:n]
	}
	for k := i; k < j; k++ {
		if k > i || r.later[k].off != lo {
			copy(c.data[r.later[k].off-lo:], r.later[k].data)
		}
	}
	copy(c.data[off-lo:], data)
	switch {
	case i == j:
		if len(r.later) >= maxRecvGaps {
			return errTooManyGaps
		}
		r.later = append(r.later, recvChunk{})
		copy(r.later[i+1:], r.later[i:])
		r.later[i] = c
	default:
		r.later[i] = c
		r.later = append(r.later[:i+1], r.later[j:]...)
	}
	return nil
}

// readable returns how many bytes can be read now.
func (r *recvBuf) readable() int { return len(r.buf) }

// peek returns the readable bytes, valid until the next push or discard.
func (r *recvBuf) peek() []byte { return r.buf }

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

// skip drops every byte held and moves the read offset to off (a stream
// reset or no longer read: what arrives is counted, not kept).
func (r *recvBuf) skip(off uint64) {
	r.buf, r.have, r.later = r.buf[:0], r.have[:0], nil
	r.readOff = off
	r.high = max(r.high, off)
}

// finished reports whether every byte up to the final size was read.
func (r *recvBuf) finished() bool { return r.hasFinal && r.readOff == r.final }
