package quic

// MaxAckRanges bounds the ranges a RangeSet keeps: past it the smallest
// range is dropped, as the peer has long given up on it or learned of it
// from earlier ACKs.
const MaxAckRanges = 32

// Range is a run of packet numbers, Lo to Hi inclusive.
type Range struct {
	Lo, Hi uint64
}

// RangeSet holds the packet numbers received in one number space, as
// disjoint ranges, largest first, the shape of an ACK frame. The zero
// value is empty and ready. Its ranges live in a slice that grows to
// the most the set has held (MaxAckRanges at most) and is then reused,
// so adding allocates only while the set is larger than ever before.
type RangeSet struct {
	r []Range
}

// Len returns the number of ranges.
func (s *RangeSet) Len() int { return len(s.r) }

// At returns the i-th range, 0 being the largest.
func (s *RangeSet) At(i int) Range { return s.r[i] }

// Largest returns the largest packet number held, and false if none.
func (s *RangeSet) Largest() (uint64, bool) {
	if len(s.r) == 0 {
		return 0, false
	}
	return s.r[0].Hi, true
}

// Contains reports whether pn is held.
func (s *RangeSet) Contains(pn uint64) bool {
	for i := range s.r {
		if pn >= s.r[i].Lo {
			return pn <= s.r[i].Hi
		}
	}
	return false
}

// Add records pn and reports whether it was new and kept: false for a
// duplicate, or for a number below every range of a full set. Adding the
// next number in order costs a comparison and an increment.
func (s *RangeSet) Add(pn uint64) bool {
	for i := range s.r {
		r := &s.r[i]
		if pn >= r.Lo && pn <= r.Hi {
			return false
		}
		if pn < r.Lo {
			continue
		}
		joinsAbove := i > 0 && s.r[i-1].Lo == pn+1
		joinsBelow := r.Hi+1 == pn
		switch {
		case joinsAbove && joinsBelow:
			s.r[i-1].Lo = r.Lo
			s.remove(i)
		case joinsAbove:
			s.r[i-1].Lo = pn
		case joinsBelow:
			r.Hi = pn
		default:
			s.insert(i, pn)
		}
		return true
	}
	n := len(s.r)
	if n > 0 && s.r[n-1].Lo == pn+1 {
		s.r[n-1].Lo = pn
		return true
	}
	if n == MaxAckRanges {
		return false
	}
	s.insert(n, pn)
	return true
}

// insert puts the range {pn, pn} at i, dropping the smallest range if
// the set is full.
func (s *RangeSet) insert(i int, pn uint64) {
	if len(s.r) == MaxAckRanges {
		s.r = s.r[:MaxAckRanges-1]
	}
	s.r = append(s.r, Range{})
	copy(s.r[i+1:], s.r[i:len(s.r)-1])
	s.r[i] = Range{pn, pn}
}

// remove deletes the i-th range.
func (s *RangeSet) remove(i int) {
	copy(s.r[i:], s.r[i+1:])
	s.r = s.r[:len(s.r)-1]
}

// RemoveBelow forgets every packet number below pn: those an ACK of an
// ACK shows the peer no longer needs to hear of.
func (s *RangeSet) RemoveBelow(pn uint64) {
	for i := range s.r {
		r := &s.r[i]
		if r.Hi < pn {
			s.r = s.r[:i]
			return
		}
		if r.Lo < pn {
			r.Lo = pn
			s.r = s.r[:i+1]
			return
		}
	}
}

// shrink moves the ranges to a slice of their own size when the one they
// are in is larger: for a connection gone quiet.
func (s *RangeSet) shrink() {
	if cap(s.r) > len(s.r) {
		s.r = append([]Range(nil), s.r...)
	}
}
