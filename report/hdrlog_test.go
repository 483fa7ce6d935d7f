package report

import (
	"bytes"
	"io"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

func TestHdrLog(t *testing.T) {
	// Runs that kept interval histograms log one interval per second; the
	// others log the whole run as one.
	perSecond := map[string]int{"closed": 11, "http2": 11, "auto": 11, "merged": 3, "targets_merged": 2, "websocket": 11}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r := f.result()
			var buf bytes.Buffer
			if err := HdrLog(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden(t, "hdrlog_"+f.name+".golden", buf.Bytes())

			intervals, total := 0, int64(0)
			reader := hdrhistogram.NewHistogramLogReader(&buf)
			for {
				h, err := reader.NextIntervalHistogram()
				if err != nil {
					t.Fatal(err)
				}
				if h == nil {
					break
				}
				if intervals == 0 {
					// The reader rebuilds absolute times through floats, so
					// allow it a millisecond.
					want := max(r.Start.UnixMilli(), 0) // the zero time is written as the epoch
					if d := h.StartTimeMs() - want; d < -1 || d > 1 {
						t.Errorf("first interval starts at %d ms, want %d", h.StartTimeMs(), want)
					}
				}
				if h.EndTimeMs() <= h.StartTimeMs() {
					t.Errorf("interval %d ends at %d ms, before its start at %d ms", intervals, h.EndTimeMs(), h.StartTimeMs())
				}
				intervals++
				total += h.TotalCount()
			}
			want := perSecond[f.name]
			if want == 0 {
				want = 1
			}
			if intervals != want {
				t.Errorf("read %d intervals, want %d", intervals, want)
			}
			if want := orEmpty(r.Latency).TotalCount(); total != want {
				t.Errorf("intervals hold %d values, want %d", total, want)
			}
		})
	}
}

func TestHdrLogLeavesResultAlone(t *testing.T) {
	r := openLateRun()
	if err := HdrLog(&bytes.Buffer{}, r); err != nil {
		t.Fatal(err)
	}
	if r.Latency.StartTimeMs() != 0 || r.Latency.EndTimeMs() != 0 {
		t.Error("HdrLog stamped times on the result's latency histogram")
	}
}

func TestHdrLogErrors(t *testing.T) {
	corrupt := closedRun()
	corrupt.Timeline[3].Hist = []byte("not a histogram")
	tests := []struct {
		name string
		w    io.Writer
		r    *result.Result
	}{
		{"a corrupt interval histogram is an error", &bytes.Buffer{}, corrupt},
		{"a failing writer is an error", failingWriter{}, closedRun()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := HdrLog(tt.w, tt.r); err == nil {
				t.Error("HdrLog returned no error")
			}
		})
	}
}
