package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// HdrLog writes an HdrHistogram interval log, the .hlog format of
// HdrHistogram's HistogramLogWriter that HistogramLogProcessor,
// HistogramLogAnalyzer and hdrhistogram.NewHistogramLogReader read.
//
// The log holds one interval per timeline second when every second carries
// its histogram (load.Config.IntervalHistograms), and otherwise a single
// interval holding the whole latency histogram. Interval timestamps are
// relative to a BaseTime header; together they give each interval's
// absolute time to the millisecond.
//
// Values are latencies in microseconds, so tools that assume nanoseconds
// need an output value unit ratio of 1000 to report milliseconds; for the
// same reason the log's Interval_Max column, which the writer scales for
// nanoseconds, reads in seconds. A Start before 1970 (such as the zero
// time), which the format cannot hold, is written as the Unix epoch.
func HdrLog(w io.Writer, r *result.Result) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	startMs := max(r.Start.UnixMilli(), 0)
	// The StartTime and BaseTime headers hold whole seconds only, so
	// timestamps are written relative to the whole second: readers then
	// rebuild absolute times to the millisecond.
	baseMs := startMs / 1000 * 1000
	lw.SetBaseTime(baseMs)
	header := []func() error{
		lw.OutputLogFormatVersion,
		func() error { return lw.OutputComment(logComment(r)) },
		func() error { return lw.OutputStartTime(startMs) },
		func() error { return lw.OutputBaseTime(baseMs) },
		lw.OutputLegend,
	}
	for _, write := range header {
		if err := write(); err != nil {
			return err
		}
	}

	if !hasIntervalHistograms(r.Timeline) {
		h := orEmpty(r.Latency).Clone() // leave r's timestamps alone
		h.SetStartTimeMs(startMs)
		h.SetEndTimeMs(startMs + max(r.Duration.Milliseconds(), 1))
		return lw.OutputIntervalHistogram(h)
	}
	endMs := startMs + r.Duration.Milliseconds()
	for _, s := range r.Timeline {
		h, err := hdrhistogram.Decode(s.Hist)
		if err != nil {
			return fmt.Errorf("second %d: decode histogram: %w", s.Second, err)
		}
		from := startMs + int64(s.Second)*time.Second.Milliseconds()
		to := from + time.Second.Milliseconds()
		if to > endMs && endMs > from {
			to = endMs // the last second may be cut short
		}
		h.SetStartTimeMs(from)
		h.SetEndTimeMs(to)
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return err
		}
	}
	return nil
}

// hasIntervalHistograms reports whether every second of a non-empty
// timeline carries its histogram.
func hasIntervalHistograms(timeline []result.Second) bool {
	for _, s := range timeline {
		if len(s.Hist) == 0 {
			return false
		}
	}
	return len(timeline) > 0
}

// logComment describes the run on one comment line.
func logComment(r *result.Result) string {
	target := strings.Join(strings.Fields(r.Method+" "+r.URL), " ") // no line breaks
	if target == "" {
		return "[gust load; latency in microseconds]"
	}
	return fmt.Sprintf("[gust load %s; latency in microseconds]", target)
}
