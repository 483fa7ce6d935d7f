package result

import (
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Thresholds on streamed responses (Result.Stream): a latency of the time
// to each stream's first event, to its first byte, or between events,
// written with the scope before the metric: first_event p99<50ms,
// first_byte p95<10ms, gap p99<20ms.

// streamScopes are the scopes of a Stream's histograms, and of a gRPC
// run's streamed messages (threshold_grpc.go).
var streamScopes = []string{"first_event", "first_byte", "gap", "message", "first_message", "message_gap"}

// setStreamScope takes a stream scope written before the metric off
// *name, and reports whether there was one.
func (t *Threshold) setStreamScope(name *string) bool {
	for _, s := range streamScopes {
		if rest, ok := strings.CutPrefix(*name, s+" "); ok {
			t.Scope, *name = s, strings.TrimSpace(rest)
			return true
		}
	}
	return false
}

// isStreamScope reports whether scope is one of a Stream's.
func isStreamScope(scope string) bool {
	for _, s := range streamScopes {
		if scope == s {
			return true
		}
	}
	return false
}

// judgeStream judges a latency threshold on one of r.Stream's histograms.
func (t Threshold) judgeStream(r *Result) Verdict {
	v := Verdict{Threshold: t}
	if isGRPCScope(t.Scope) {
		return t.judgeGRPC(r)
	}
	if r.Stream == nil {
		v.Note = "no response was read as a stream (--sse, --stream)"
		return v
	}
	if !t.Metric.Latency() {
		v.Note = t.Scope + " takes a latency (p99, mean, min, max)"
		return v
	}
	var h *hdrhistogram.Histogram
	switch t.Scope {
	case "first_event":
		h = r.Stream.FirstEvent
	case "first_byte":
		h = r.Stream.FirstByte
	default:
		h = r.Stream.Gap
	}
	if h == nil || h.TotalCount() == 0 {
		v.Note = "nothing measured"
		return v
	}
	v.Value = t.latencyOf(h)
	v.OK = compare(v.Value, t.Op, t.Limit)
	return v
}
