package quic

// sendBuf is the sending half of a stream, or of an encryption level's
// crypto stream: the bytes written and not yet acknowledged, what was sent,
// what was acknowledged above the contiguous prefix, and what was declared
// lost and waits to be sent again. Its buffer is compacted in place, so a
// stream that keeps writing reuses it.
type sendBuf struct {
	buf   []byte // buf[start:] holds the stream from offset base
	start int
	base  uint64 // every byte below is acknowledged
	next  uint64 // the first byte never sent
	acked spanSet
	lost  spanSet

	fin      bool // the writer closed the stream
	finSent  bool
	finAcked bool
}

// end returns the offset after the last byte written.
func (s *sendBuf) end() uint64 { return s.base + uint64(len(s.buf)-s.start) }

// buffered returns the bytes held: written and not acknowledged.
func (s *sendBuf) buffered() int { return len(s.buf) - s.start }

// write appends p to the stream.
func (s *sendBuf) write(p []byte) {
	if s.start > 0 && s.start >= len(s.buf)/2 {
		n := copy(s.buf, s.buf[s.start:])
		s.buf, s.start = s.buf[:n], 0
	}
	s.buf = append(s.buf, p...)
}

// bytes returns the n bytes at offset off, which are held.
func (s *sendBuf) bytes(off uint64, n int) []byte {
	i := s.start + int(off-s.base)
	return s.buf[i : i+n]
}

// pending reports whether there is something to send when new data may
// go up to offset limit (flow control): lost bytes, new bytes, or the FIN.
func (s *sendBuf) pending(limit uint64) bool {
	return len(s.lost) > 0 || s.next < min(s.end(), limit) || (s.fin && !s.finSent && s.next == s.end())
}

// chunk returns the next range to send, at most max bytes, new data going
// up to limit: lost ranges first, then new bytes, then a lone FIN.
func (s *sendBuf) chunk(max int, limit uint64) (off uint64, n int, fin, ok bool) {
	if len(s.lost) > 0 {
		sp := s.lost[0]
		n = int(min(sp.hi-sp.lo, uint64(max)))
		off = sp.lo
		return off, n, s.fin && !s.finAcked && off+uint64(n) == s.end(), true
	}
	if end := min(s.end(), limit); s.next < end {
		n = int(min(end-s.next, uint64(max)))
		return s.next, n, s.fin && s.next+uint64(n) == s.end(), true
	}
	if s.fin && !s.finSent && s.next == s.end() {
		return s.next, 0, true, true
	}
	return 0, 0, false, false
}

// onSent records that [off, off+n) went out, with the FIN if fin.
func (s *sendBuf) onSent(off uint64, n int, fin bool) {
	end := off + uint64(n)
	s.lost.remove(off, end)
	s.next = max(s.next, end)
	if fin {
		s.finSent = true
	}
}

// onAcked records that the peer has [off, off+n) and drops the bytes
// that are now acknowledged from the start.
func (s *sendBuf) onAcked(off uint64, n int, fin bool) {
	end := off + uint64(n)
	if fin {
		s.finAcked = true
	}
	if end <= s.base {
		return
	}
	s.acked.add(max(off, s.base), end)
	s.lost.remove(off, end)
	if len(s.acked) > 0 && s.acked[0].lo <= s.base {
		top := s.acked[0].hi
		s.acked.remove(s.base, top)
		s.start += int(top - s.base)
		s.base = top
		if s.start == len(s.buf) {
			s.buf, s.start = s.buf[:0], 0
		}
	}
}

// onLost records that [off, off+n) may not have arrived: its bytes not
// acknowledged since go out again.
func (s *sendBuf) onLost(off uint64, n int, fin bool) {
	end := off + uint64(n)
	if fin && !s.finAcked {
		s.finSent = false
	}
	off = max(off, s.base)
	if off >= end {
		return
	}
	s.lost.add(off, end)
	for _, a := range s.acked {
		if a.lo < end && a.hi > off {
			s.lost.remove(a.lo, a.hi)
		}
	}
}

// done reports whether everything, FIN included, is acknowledged.
func (s *sendBuf) done() bool { return s.fin && s.finAcked && s.base == s.end() }

// reset forgets every byte: the stream was reset or the level dropped.
func (s *sendBuf) reset() {
	s.buf, s.start = s.buf[:0], 0
	s.base = s.end()
	s.next = s.base
	s.acked, s.lost = s.acked[:0], s.lost[:0]
}

// restart makes every byte written unsent again, from offset 0: the
// client's first flight after a Retry.
func (s *sendBuf) restart() {
	if s.base != 0 {
		return // acknowledged data cannot be unsent; a Retry comes first
	}
	s.next, s.finSent = 0, false
	s.acked, s.lost = s.acked[:0], s.lost[:0]
}
