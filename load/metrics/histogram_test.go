package metrics

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gust-http/gust/result"
)

func TestMapHistogramBuckets(t *testing.T) {
	tests := []struct {
		name   string
		values []int64 // microseconds
		bounds []float64
		want   []uint64
	}{
		{"empty", nil, []float64{0.001, 0.01}, []uint64{0, 0}},
		{"a value on a bound counts under it", []int64{1000}, []float64{0.000999, 0.001, 0.002}, []uint64{0, 1, 1}},
		{"below 2,048 µs every microsecond is exact", []int64{1, 999, 1000, 1001, 2047}, []float64{0.000001, 0.000999, 0.001, 0.001001, 0.002046, 0.002047}, []uint64{1, 2, 3, 4, 4, 5}},
		{"above, a value counts as the top of its range", []int64{20000, 20015, 20016}, []float64{0.02, 0.020015, 0.020031}, []uint64{0, 2, 3}},
		{"values past the last bound are only in +Inf", []int64{5, 70_000_000}, []float64{0.001, 60}, []uint64{1, 1}},
		{"a bound's rounding is forgiven (0.000249 s is 248.99999999999997 µs)", []int64{249}, []float64{0.000249}, []uint64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := result.NewHistogram()
			for _, v := range tt.values {
				h.RecordValue(v)
			}
			s := mapHistogram(h, tt.bounds)
			if s.count != uint64(len(tt.values)) {
				t.Errorf("count %d, want %d", s.count, len(tt.values))
			}
			for i := range tt.want {
				if s.cum[i] != tt.want[i] {
					t.Errorf("le=%g: %d, want %d (all %v)", tt.bounds[i], s.cum[i], tt.want[i], s.cum)
				}
			}
		})
	}
}

// TestMapHistogramAgreesWithTheReport checks the mapping against each
// value's reported value worked out by hand: a value is under a bound
// exactly when the value HdrHistogram reports for it is, so the buckets
// and the report's percentiles never disagree about which side of a
// bound a response fell.
func TestMapHistogramAgreesWithTheReport(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := result.NewHistogram()
	want := make([]uint64, len(DefaultBuckets))
	for range 20_000 {
		v := int64(math.Exp(rng.Float64()*math.Log(90e6))) + 1 // 1 µs to 90 s, log-uniform
		h.RecordValue(v)
		for i, b := range DefaultBuckets {
			if float64(reported(v)) <= math.Round(b*1e6) {
				want[i]++
			}
		}
	}
	s := mapHistogram(h, DefaultBuckets)
	for i := range want {
		if s.cum[i] != want[i] {
			t.Errorf("le=%g: %d, want %d", DefaultBuckets[i], s.cum[i], want[i])
		}
	}
	if s.count != 20_000 {
		t.Errorf("count %d", s.count)
	}
	var native int64
	for _, n := range s.native {
		native += n
	}
	if native != 20_000 {
		t.Errorf("native buckets hold %d, want 20000", native)
	}
}

// reported is the value a 3-digit HdrHistogram reports for v: the top of
// its range, which is 1 µs wide below 2,048 µs and doubles with each
// doubling of v after.
func reported(v int64) int64 {
	if v < 2048 {
		return v
	}
	width := int64(1) << (bits.Len64(uint64(v)) - 11)
	return v/width*width + width - 1
}

func TestNativeIndex(t *testing.T) {
	for _, v := range []float64{1e-6, 0.0005, 0.001, 0.02, 0.5, 1, 2, 3, 60, 3600, math.Exp2(-3), math.Exp2(5.0 / 32)} {
		i := nativeIndex(v)
		if !(nativeUpper(i-1) < v && v <= nativeUpper(i)) {
			t.Errorf("nativeIndex(%g) = %d: bucket (%g, %g]", v, i, nativeUpper(i-1), nativeUpper(i))
		}
	}
	if i := nativeIndex(1); i != 0 {
		t.Errorf("nativeIndex(1) = %d, want 0 (bucket 0's upper bound is 1)", i)
	}
	if i := nativeIndex(2); i != 1<<NativeSchema {
		t.Errorf("nativeIndex(2) = %d, want %d", i, 1<<NativeSchema)
	}
}

func TestNativeSpans(t *testing.T) {
	spans, deltas := nativeSpans(map[int]int64{-3: 2, -2: 5, 4: 1, 5: 1, 9: 7})
	type span struct {
		off int32
		n   uint32
	}
	wantSpans := []span{{-3, 2}, {5, 2}, {3, 1}}
	wantDeltas := []int64{2, 3, -4, 0, 6}
	if len(spans) != len(wantSpans) {
		t.Fatalf("%d spans, want %d", len(spans), len(wantSpans))
	}
	for i, s := range spans {
		if (span{s.GetOffset(), s.GetLength()}) != wantSpans[i] {
			t.Errorf("span %d = {%d %d}, want %v", i, s.GetOffset(), s.GetLength(), wantSpans[i])
		}
	}
	for i := range wantDeltas {
		if deltas[i] != wantDeltas[i] {
			t.Errorf("deltas %v, want %v", deltas, wantDeltas)
			break
		}
	}
}
