package metrics

import (
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// NativeSchema is the resolution of the native histogram: each bucket's
// upper bound is 2^(1/2^NativeSchema) times its lower, about 2.2% wide,
// coarser than HdrHistogram's 0.1% and fine enough for percentiles.
const NativeSchema = 5

// nativeZeroThreshold is client_golang's default: values at or below it
// would count as zero (no latency does; the histogram starts at 1 µs).
const nativeZeroThreshold = 2.938735877055719e-39

// DefaultBuckets are the classic buckets' upper bounds, in seconds: from
// 100 µs to a minute, closer together where services usually answer.
var DefaultBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.0075,
	0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75,
	1, 1.5, 2, 3, 5, 10, 30, 60,
}

// histSnap is a latency histogram as Prometheus sees it: classic buckets
// (cumulative counts at each bound), native buckets by index, the count
// and the sum, in seconds.
type histSnap struct {
	count  uint64
	sum    float64
	bounds []float64 // shared, read-only
	cum    []uint64  // len(bounds)
	native map[int]int64
}

// mapHistogram maps h (microseconds) onto the classic bounds and the
// native buckets, from all its counts. A recorded value counts under a
// bound when the value HdrHistogram reports for it (the highest of its
// equivalence range, as the report's percentiles are) is at or below the
// bound, so a bucket holds at least a quantile's share of the counts
// exactly when the report's quantile is within the bound. Values within
// HdrHistogram's precision of a bound (0.1%, and exactly below 2,048 µs)
// cannot be told apart from it.
func mapHistogram(h *hdrhistogram.Histogram, bounds []float64) histSnap {
	s := histSnap{
		count:  uint64(h.TotalCount()),
		bounds: bounds,
		cum:    make([]uint64, len(bounds)),
		native: make(map[int]int64),
	}
	if s.count == 0 {
		return s
	}
	s.sum = h.Mean() * float64(h.TotalCount()) / 1e6
	b := 0
	var below uint64 // counted at bounds below bounds[b]
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		us := bar.To
		for b < len(bounds) && us > boundMicros(bounds[b]) {
			s.cum[b] = below
			b++
		}
		below += uint64(bar.Count)
		s.native[nativeIndex(float64(us)/1e6)] += bar.Count
	}
	for ; b < len(bounds); b++ {
		s.cum[b] = below
	}
	return s
}

// boundMicros is the largest whole microsecond at or below a bound in
// seconds (the histogram records whole microseconds), forgiving the
// bound's own rounding (0.02 s is 20,000 µs, not 19,999).
func boundMicros(sec float64) int64 { return int64(math.Floor(sec*1e6 + 1e-6)) }

// nativeIndex is the native bucket of v > 0 at NativeSchema: bucket i
// holds (2^((i-1)/2^s), 2^(i/2^s)].
func nativeIndex(v float64) int {
	const per = 1 << NativeSchema
	i := int(math.Ceil(math.Log2(v) * per))
	// Log2's rounding can put v one bucket off at an edge.
	if v > nativeUpper(i) {
		i++
	} else if v <= nativeUpper(i-1) {
		i--
	}
	return i
}

// nativeUpper is native bucket i's upper bound.
func nativeUpper(i int) float64 { return math.Exp2(float64(i) / (1 << NativeSchema)) }

// histMetric is the latency histogram as one Prometheus metric with both
// kinds of buckets: the text formats show the classic ones, and a
// scraper that negotiates protobuf gets the native ones too.
type histMetric struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	h      dto.Histogram
}

func newHistMetric(desc *prometheus.Desc, s *histSnap, labelValues ...string) *histMetric {
	m := &histMetric{desc: desc, labels: prometheus.MakeLabelPairs(desc, labelValues)}
	count, sum := s.count, s.sum
	schema, zero, zeroCount := int32(NativeSchema), nativeZeroThreshold, uint64(0)
	m.h.SampleCount, m.h.SampleSum = &count, &sum
	m.h.Bucket = make([]*dto.Bucket, len(s.bounds))
	for i := range s.bounds {
		m.h.Bucket[i] = &dto.Bucket{CumulativeCount: &s.cum[i], UpperBound: &s.bounds[i]}
	}
	m.h.Schema, m.h.ZeroThreshold, m.h.ZeroCount = &schema, &zero, &zeroCount
	m.h.PositiveSpan, m.h.PositiveDelta = nativeSpans(s.native)
	if len(m.h.PositiveSpan) == 0 {
		// An empty native histogram still says it is one.
		m.h.PositiveSpan = []*dto.BucketSpan{{Offset: new(int32(0)), Length: new(uint32(0))}}
	}
	return m
}

// Desc returns the metric's description.
func (m *histMetric) Desc() *prometheus.Desc { return m.desc }

// Write fills out with the histogram and its labels.
func (m *histMetric) Write(out *dto.Metric) error {
	out.Label = m.labels
	out.Histogram = &m.h
	return nil
}

// nativeSpans encodes native bucket counts as protobuf spans (runs of
// consecutive indexes, each offset from the end of the last) and deltas
// (each count less the one before it).
func nativeSpans(buckets map[int]int64) ([]*dto.BucketSpan, []int64) {
	if len(buckets) == 0 {
		return nil, nil
	}
	idx := make([]int, 0, len(buckets))
	for i := range buckets {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var spans []*dto.BucketSpan
	deltas := make([]int64, 0, len(idx))
	var prevCount int64
	next := 0 // the index after the last span
	for j, i := range idx {
		if j == 0 || i != idx[j-1]+1 {
			spans = append(spans, &dto.BucketSpan{Offset: new(int32(i - next)), Length: new(uint32(0))})
		}
		*spans[len(spans)-1].Length++
		next = i + 1
		deltas = append(deltas, buckets[i]-prevCount)
		prevCount = buckets[i]
	}
	return spans, deltas
}
