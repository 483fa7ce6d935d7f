package http2

// streamTable maps open stream ids to slot indexes without allocating after
// construction: open addressing with linear probing and backward-shift
// deletion, sized to twice the streams it may hold. Open ids are mostly
// consecutive, so they are scattered by Fibonacci hashing: with id>>1 as
// the index they would form one long run that every deletion walks.
type streamTable struct {
	keys  []uint32 // 0 marks an empty cell; stream 0 is never a key
	vals  []int32
	mask  uint32
	shift uint32
}

func (t *streamTable) home(id uint32) uint32 { return ((id >> 1) * 2654435769) >> t.shift }

func newStreamTable(capacity int) streamTable {
	size, bits := 4, uint32(2)
	for size < 2*capacity {
		size <<= 1
		bits++
	}
	return streamTable{keys: make([]uint32, size), vals: make([]int32, size), mask: uint32(size - 1), shift: 32 - bits}
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
	i := t.home(id)
	for t.keys[i] != 0 && t.keys[i] != id {
		i = (i + 1) & t.mask
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
