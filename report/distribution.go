package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The latency distribution's shape: about distBuckets rows, log-spaced
// between the fastest and slowest response, with bars barWidth cells wide
// at full length.
const (
	distBuckets = 10
	barWidth    = 40
)

// bucket is one row of the latency distribution: responses slower than the
// previous row's bound and at most upTo microseconds.
type bucket struct {
	upTo  int64
	count int64
}

// distribution splits h's values into about n log-spaced buckets between
// its min and max. Bounds in between are rounded up to two significant
// digits so they read well; the last bound is the max. It returns nil for
// an empty histogram.
func distribution(h *hdrhistogram.Histogram, n int) []bucket {
	if h.TotalCount() == 0 {
		return nil
	}
	bounds := logBounds(max(h.Min(), 1), max(h.Max(), 1), n)
	buckets := make([]bucket, len(bounds))
	for i, b := range bounds {
		buckets[i].upTo = b
	}
	i := 0
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		for i < len(buckets)-1 && bar.From > buckets[i].upTo {
			i++
		}
		buckets[i].count += bar.Count
	}
	return buckets
}

// logBounds returns up to n increasing upper bounds spaced evenly on a log
// scale from lo to hi, ending at hi.
func logBounds(lo, hi int64, n int) []int64 {
	if hi <= lo || n <= 1 {
		return []int64{hi}
	}
	ratio := float64(hi) / float64(lo)
	var bounds []int64
	for i := 1; i < n; i++ {
		b := ceil2(float64(lo) * math.Pow(ratio, float64(i)/float64(n)))
		if b >= hi {
			break
		}
		if len(bounds) == 0 || b > bounds[len(bounds)-1] {
			bounds = append(bounds, b)
		}
	}
	return append(bounds, hi)
}

// ceil2 rounds v up to two significant digits: 137.2 -> 140, 1881 -> 1900.
func ceil2(v float64) int64 {
	if v <= 100 {
		return int64(math.Ceil(v))
	}
	step := math.Pow(10, math.Floor(math.Log10(v))-1)
	return int64(math.Ceil(v/step) * step)
}

// eighths are the partial block characters for 1/8 to 7/8 of a cell.
var eighths = [8]string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// bar draws n of most as a bar of Unicode blocks with 1/8-cell resolution,
// padded to width cells. Any nonzero n gets at least a sliver.
func bar(n, most int64, width int) string {
	cells := 0
	if most > 0 {
		cells = int(math.Round(float64(n) / float64(most) * float64(width*8)))
	}
	if n > 0 && cells == 0 {
		cells = 1
	}
	s := strings.Repeat("█", cells/8) + eighths[cells%8]
	used := cells / 8
	if cells%8 != 0 {
		used++
	}
	return s + strings.Repeat(" ", max(width-used, 0))
}

// percent renders part of total to 0.1%, showing "<0.1%" rather than a
// misleading 0.0% for a small but nonzero share.
func percent(part, total int64) string {
	if total <= 0 {
		return "0.0%"
	}
	p := float64(part) / float64(total) * 100
	if part > 0 && p < 0.05 {
		return "<0.1%"
	}
	return fmt.Sprintf("%.1f%%", p)
}

// writeDistribution writes the distribution rows for h, one per bucket.
func writeDistribution(b *strings.Builder, h *hdrhistogram.Histogram) {
	buckets := distribution(h, distBuckets)
	var most int64
	for _, k := range buckets {
		most = max(most, k.count)
	}
	total := h.TotalCount()
	for _, k := range buckets {
		fmt.Fprintf(b, "  <= %-6s  %s  %6s  (%s)\n",
			formatMicros(float64(k.upTo)), bar(k.count, most, barWidth), percent(k.count, total), formatCount(k.count))
	}
}
