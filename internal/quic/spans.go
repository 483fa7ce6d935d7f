package quic

// span is a run of stream offsets, lo included, hi excluded.
type span struct{ lo, hi uint64 }

// spanSet holds disjoint, non-adjacent spans in ascending order: the
// byte ranges of a stream received, acknowledged or lost. It reuses its
// backing array, so a steady state allocates nothing.
type spanSet []span

// add merges [lo, hi) into the set.
func (s *spanSet) add(lo, hi uint64) {
	if lo >= hi {
		return
	}
	v := *s
	i := 0
	for i < len(v) && v[i].hi < lo {
		i++
	}
	j := i
	for j < len(v) && v[j].lo <= hi {
		lo, hi = min(lo, v[j].lo), max(hi, v[j].hi)
		j++
	}
	if i == j {
		v = append(v, span{})
		copy(v[i+1:], v[i:])
		v[i] = span{lo, hi}
	} else {
		v[i] = span{lo, hi}
		v = append(v[:i+1], v[j:]...)
	}
	*s = v
}

// remove takes [lo, hi) out of the set.
func (s *spanSet) remove(lo, hi uint64) {
	if lo >= hi {
		return
	}
	v := *s
	for i := 0; i < len(v); i++ {
		x := v[i]
		if x.hi <= lo || x.lo >= hi {
			continue
		}
		switch {
		case x.lo < lo && x.hi > hi:
			v = append(v, span{})
			copy(v[i+2:], v[i+1:])
			v[i], v[i+1] = span{x.lo, lo}, span{hi, x.hi}
			*s = v
			return
		case x.lo < lo:
			v[i].hi = lo
		case x.hi > hi:
			v[i].lo = hi
		default:
			v = append(v[:i], v[i+1:]...)
			i--
		}
	}
	*s = v
}
