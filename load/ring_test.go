package load

import "testing"

func TestRing(t *testing.T) {
	r := newRing[int](3)
	if r.len() != 0 || r.room() != 3 {
		t.Fatalf("a new ring: len %d room %d, want 0 and 3", r.len(), r.room())
	}
	// Wrap around twice: items come out oldest first, at(i) counts from
	// the oldest.
	next, want := 0, 0
	for round := 0; round < 4; round++ {
		for r.room() > 0 {
			r.push(next)
			next++
		}
		for i := range r.len() {
			if got := r.at(i); got != want+i {
				t.Fatalf("at(%d) = %d, want %d", i, got, want+i)
			}
		}
		for range 2 {
			if got := r.pop(); got != want {
				t.Fatalf("pop = %d, want %d", got, want)
			}
			want++
		}
	}
	r.reset()
	if r.len() != 0 || r.room() != 3 {
		t.Fatalf("after reset: len %d room %d", r.len(), r.room())
	}
	p := newRing[*int](2)
	p.push(new(int))
	p.pop()
	if p.buf[0] != nil {
		t.Fatal("pop left a pointer to the item in the ring")
	}
}
