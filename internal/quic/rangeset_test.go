package quic

import (
	"slices"
	"testing"
)

// checkRangeSet fails unless s holds disjoint, non-adjacent ranges,
// largest first.
func checkRangeSet(t *testing.T, s *RangeSet) {
	t.Helper()
	for i := range s.Len() {
		r := s.At(i)
		if r.Lo > r.Hi {
			t.Fatalf("range %d is %d-%d", i, r.Lo, r.Hi)
		}
		if i > 0 && r.Hi+1 >= s.At(i-1).Lo {
			t.Fatalf("ranges %d and %d touch or overlap: %v %v", i-1, i, s.At(i-1), r)
		}
	}
}

func ranges(s *RangeSet) []Range {
	out := make([]Range, s.Len())
	for i := range out {
		out[i] = s.At(i)
	}
	return out
}

func TestRangeSetAdd(t *testing.T) {
	var s RangeSet
	if _, ok := s.Largest(); ok {
		t.Error("an empty set has a largest")
	}
	for _, pn := range []uint64{5, 7, 6, 1, 2, 10, 9, 0} {
		if !s.Add(pn) {
			t.Errorf("Add(%d) reported a duplicate", pn)
		}
		checkRangeSet(t, &s)
	}
	if s.Add(6) {
		t.Error("Add(6) twice reported new")
	}
	want := []Range{{9, 10}, {5, 7}, {0, 2}}
	if got := ranges(&s); !slices.Equal(got, want) {
		t.Errorf("ranges = %v, want %v", got, want)
	}
	if l, _ := s.Largest(); l != 10 {
		t.Errorf("Largest = %d", l)
	}
	for pn, want := range map[uint64]bool{0: true, 3: false, 6: true, 8: false, 10: true, 11: false} {
		if s.Contains(pn) != want {
			t.Errorf("Contains(%d) = %v", pn, !want)
		}
	}
	s.Add(8) // joins 5-7 and 9-10
	if got := ranges(&s); !slices.Equal(got, []Range{{5, 10}, {0, 2}}) {
		t.Errorf("after 8: %v", got)
	}
	s.RemoveBelow(6)
	if got := ranges(&s); !slices.Equal(got, []Range{{6, 10}}) {
		t.Errorf("after RemoveBelow(6): %v", got)
	}
	s.RemoveBelow(11)
	if s.Len() != 0 {
		t.Errorf("after RemoveBelow(11): %v", ranges(&s))
	}
}

func TestRangeSetBounded(t *testing.T) {
	var s RangeSet
	for i := range uint64(MaxAckRanges + 5) {
		s.Add(2 * i) // every other number: one range each
	}
	if s.Len() != MaxAckRanges {
		t.Fatalf("Len = %d, want %d", s.Len(), MaxAckRanges)
	}
	if l, _ := s.Largest(); l != 2*(MaxAckRanges+4) {
		t.Errorf("Largest = %d: the newest were dropped", l)
	}
	if s.Add(1) {
		t.Error("a number below a full set was kept")
	}
	checkRangeSet(t, &s)
}

func TestRangeSetInOrderAllocs(t *testing.T) {
	var s RangeSet
	pn := uint64(0)
	if a := testing.AllocsPerRun(100, func() { s.Add(pn); pn++ }); a != 0 {
		t.Errorf("Add allocates %v times", a)
	}
}

func FuzzRangeSet(f *testing.F) {
	f.Add([]byte{5, 7, 6, 1, 2, 10, 9, 0, 8})
	f.Fuzz(func(t *testing.T, adds []byte) {
		var s RangeSet
		model := map[uint64]bool{}
		full := false // a full set may have dropped its smallest range
		for _, a := range adds {
			pn := uint64(a)
			if s.Add(pn) {
				model[pn] = true
			}
			full = full || s.Len() == MaxAckRanges
			checkRangeSet(t, &s)
		}
		// Every number held is one added; with room for every range the
		// set holds exactly what was added.
		held := 0
		for i := range s.Len() {
			r := s.At(i)
			for pn := r.Lo; pn <= r.Hi; pn++ {
				if !model[pn] {
					t.Fatalf("holds %d, never added (or dropped)", pn)
				}
				held++
			}
		}
		if !full && held != len(model) {
			t.Fatalf("holds %d numbers, %d added", held, len(model))
		}
		if s.Len() > 0 {
			ack, _, err := ParseFrame(AppendAckFrame(nil, &s, 0, nil, 0))
			if err != nil {
				t.Fatal(err)
			}
			r := ack.AckRanges()
			for i := range s.Len() {
				lo, hi, ok := r.Next()
				if !ok || (Range{lo, hi}) != s.At(i) {
					t.Fatalf("ACK range %d = %d-%d, set has %v", i, lo, hi, s.At(i))
				}
			}
		}
	})
}
