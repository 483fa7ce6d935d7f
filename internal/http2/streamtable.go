package http2

// streamTable maps open stream ids to slot indexes: open addressing with
// linear probing and backward-shift deletion, kept at most half full. It
// starts small and doubles as streams open, up to twice the streams it may
// hold, so an idle connection costs a few cells instead of a table for
// its peak, and a connection that reached its peak allocates no more. Open ids are mostly
// consecutive, so they are scattered by Fibonacci hashing: with id>>1 as
// the index they would form one long run that every deletion walks.
type streamTable struct {
	keys  []uint32 // 0 marks an empty cell; stream 0 is never a key
	vals  []int32
	mask  uint32
	shift uint32
	n     int // ids held
	full  int // the size it grows to at most
}

func (t *streamTable) home(id uint32) uint32 { return ((id >> 1) * 2654435769) >> t.shift }

func newStreamTable(capacity int) streamTable {
	full := 4
	for full < 2*capacity {
		full <<= 1
	}
	t := streamTable{full: full}
	t.resize(min(full, 8))
	return t
}

// resize makes the table size cells (a power of two) and puts back the
// ids it held.
func (t *streamTable) resize(size int) {
	keys, vals := t.keys, t.vals
	bits := uint32(0)
	for 1<<bits < size {
		bits++
	}
	t.keys, t.vals = make([]uint32, size), make([]int32, size)
	t.mask, t.shift, t.n = uint32(size-1), 32-bits, 0
	for i, k := range keys {
		if k != 0 {
			t.put(k, vals[i])
		}
	}
}

// get returns the slot of id, or -1.
func (t *streamTable) get(id uint32) int32 {
	for i := t.home(id); ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case id:
			return t.vals[i]
		case 0:
			return -1
		}
	}
}

// put records id's slot; the caller never holds more than capacity ids.
func (t *streamTable) put(id uint32, slot int32) {
	if 2*(t.n+1) > len(t.keys) && len(t.keys) < t.full {
		t.resize(2 * len(t.keys))
	}
	i := t.home(id)
	for t.keys[i] != 0 && t.keys[i] != id {
		i = (i + 1) & t.mask
	}
	if t.keys[i] == 0 {
		t.n++
	}
	t.keys[i], t.vals[i] = id, slot
}

// del removes id, shifting later entries of its probe run back so lookups
// never need tombstones.
func (t *streamTable) del(id uint32) {
	i := t.home(id)
	for t.keys[i] != id {
		if t.keys[i] == 0 {
			return
		}
		i = (i + 1) & t.mask
	}
	t.n--
	for {
		t.keys[i] = 0
		j := i
		for {
			j = (j + 1) & t.mask
			if t.keys[j] == 0 {
				return
			}
			home := t.home(t.keys[j])
			// Move j back to i unless its home lies cyclically in (i, j].
			if (j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j)) {
				t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
				i = j
				break
			}
		}
	}
}

// takeSlot returns a free slot of a stream pool, growing the pool when none
// is free. Pools start empty, so an idle connection costs no stream state;
// once a connection has seen its peak of concurrent streams, slots are only
// reused.
func takeSlot[T any](slots *[]T, free *[]int32) int32 {
	if n := len(*free); n > 0 {
		slot := (*free)[n-1]
		*free = (*free)[:n-1]
		return slot
	}
	var zero T
	*slots = append(*slots, zero)
	return int32(len(*slots) - 1)
}
