package http2

import (
	"math/rand/v2"
	"testing"
)

// TestStreamTableMatchesAMap drives the table and a map with the same random
// opens and closes and compares every lookup.
func TestStreamTableMatchesAMap(t *testing.T) {
	for _, capacity := range []int{1, 3, 100} {
		tab := newStreamTable(capacity)
		ref := map[uint32]int32{}
		rng := rand.New(rand.NewPCG(1, uint64(capacity)))
		next := uint32(1)
		for step := 0; step < 20000; step++ {
			if len(ref) < capacity && rng.IntN(2) == 0 {
				tab.put(next, int32(step))
				ref[next] = int32(step)
				next += 2
			} else if len(ref) > 0 {
				for id := range ref {
					tab.del(id)
					delete(ref, id)
					if tab.get(id) != -1 {
						t.Fatalf("capacity %d step %d: deleted id %d still found", capacity, step, id)
					}
					break
				}
			}
			for id, v := range ref {
				if got := tab.get(id); got != v {
					t.Fatalf("capacity %d step %d: get(%d) = %d, want %d", capacity, step, id, got, v)
				}
			}
			if tab.get(next) != -1 || tab.get(next-2+4) != -1 {
				t.Fatalf("capacity %d step %d: an absent id was found", capacity, step)
			}
		}
	}
}
