package sse

import (
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestAppendTickIsOneEvent: each tick is the bytes the test streams send,
// and the Scanner counts it as one event.
func TestAppendTickIsOneEvent(t *testing.T) {
	for _, tt := range []struct {
		i    int
		sent int64
		want string
	}{
		{1, 0, "id: 1\ndata: tick 1\n\n"},
		{42, 1700000000123456789, "id: 42\ndata: tick 42 1700000000123456789\n\n"},
	} {
		got := AppendTick([]byte("x"), tt.i, tt.sent)
		if string(got[1:]) != tt.want {
			t.Errorf("AppendTick(%d, %d) = %q, want %q", tt.i, tt.sent, got[1:], tt.want)
		}
		var s Scanner
		if n := s.Feed(got[1:]); n != 1 {
			t.Errorf("%q scanned as %d events", got[1:], n)
		}
	}
}

// TestNewStats: an empty histogram is all zeros; a filled one gives its
// count, bounds and percentiles, the mean to a tenth.
func TestNewStats(t *testing.T) {
	h := hdrhistogram.New(1, 1_000_000, 3)
	if s := NewStats(h); s != (Stats{}) {
		t.Errorf("empty: %+v", s)
	}
	for v := int64(1); v <= 100; v++ { // values the histogram holds exactly
		h.RecordValue(v)
	}
	s := NewStats(h)
	if s.Count != 100 || s.Min != 1 || s.Max != 100 || s.P50 != 50 || s.P90 != 90 || s.P99 != 99 || s.Mean != 50.5 {
		t.Errorf("%+v", s)
	}
}
