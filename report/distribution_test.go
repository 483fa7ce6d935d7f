package report

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

func TestLogBounds(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi int64
		want   []int64
	}{
		{"a single value gives one bucket", 420, 420, []int64{420}},
		{"a narrow range gives fewer buckets", 1, 3, []int64{2, 3}},
		{"a decade splits into rounded steps", 100, 1000, []int64{130, 160, 200, 260, 320, 400, 510, 640, 800, 1000}},
		{"the last bound is the max, unrounded", 180, 150_015, []int64{360, 700, 1400, 2700, 5200, 11000, 20000, 40000, 77000, 150_015}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := logBounds(tt.lo, tt.hi, distBuckets)
			if !slices.Equal(got, tt.want) {
				t.Errorf("logBounds(%d, %d) = %v, want %v", tt.lo, tt.hi, got, tt.want)
			}
		})
	}
}

func TestDistributionCountsEveryValue(t *testing.T) {
	tests := []struct {
		name   string
		values []int64 // value, count pairs
	}{
		{"one value", []int64{500, 10}},
		{"a long tail", []int64{90, 1000, 400, 500, 2000, 50, 90_000, 3}},
		{"values in wide sub-buckets", []int64{100_003, 7, 2_999_999, 5}},
		{"the smallest value", []int64{1, 4, 2, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := result.NewHistogram()
			record(h, tt.values...)
			buckets := distribution(h, distBuckets)
			var sum int64
			for i, b := range buckets {
				sum += b.count
				if i > 0 && b.upTo <= buckets[i-1].upTo {
					t.Errorf("bounds not increasing: %v", buckets)
				}
			}
			if sum != h.TotalCount() {
				t.Errorf("buckets hold %d values, want %d", sum, h.TotalCount())
			}
			if last := buckets[len(buckets)-1].upTo; last != h.Max() {
				t.Errorf("last bound %d, want the max %d", last, h.Max())
			}
			if len(buckets) > distBuckets {
				t.Errorf("%d buckets, want at most %d", len(buckets), distBuckets)
			}
		})
	}
	if distribution(hdrhistogram.New(1, 10, 1), distBuckets) != nil {
		t.Error("an empty histogram has buckets")
	}
}

func TestBar(t *testing.T) {
	tests := []struct {
		n, most int64
		want    string
	}{
		{0, 100, ""},
		{100, 100, strings.Repeat("█", 40)},
		{50, 100, strings.Repeat("█", 20)},
		{1, 320, "▏"},       // exactly one eighth of a cell
		{1, 1_000_000, "▏"}, // too small to see, but not nothing
		{713, 1000, strings.Repeat("█", 28) + "▌"},
		{0, 0, ""},
	}
	for _, tt := range tests {
		got := bar(tt.n, tt.most, 40)
		if trimmed := strings.TrimRight(got, " "); trimmed != tt.want {
			t.Errorf("bar(%d, %d) = %q, want %q", tt.n, tt.most, trimmed, tt.want)
		}
		if w := utf8.RuneCountInString(got); w != 40 {
			t.Errorf("bar(%d, %d) is %d cells wide, want 40", tt.n, tt.most, w)
		}
	}
}

func TestPercent(t *testing.T) {
	tests := []struct {
		part, total int64
		want        string
	}{
		{0, 0, "0.0%"},
		{0, 10, "0.0%"},
		{1, 100_000, "<0.1%"},
		{712, 1000, "71.2%"},
		{1000, 1000, "100.0%"},
	}
	for _, tt := range tests {
		if got := percent(tt.part, tt.total); got != tt.want {
			t.Errorf("percent(%d, %d) = %q, want %q", tt.part, tt.total, got, tt.want)
		}
	}
}
