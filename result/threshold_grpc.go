package result

import "github.com/HdrHistogram/hdrhistogram-go"

// Thresholds on a gRPC run's streamed messages (Result.GRPC), written as
// the stream scopes are: message p99<50ms (a bidirectional call's time
// from each message sent to its echo), first_message p95<20ms (a server
// stream's time to its first message), message_gap p99<10ms (between
// response messages).

// isGRPCScope reports whether scope is one of GRPC's histograms.
func isGRPCScope(scope string) bool {
	return scope == "message" || scope == "first_message" || scope == "message_gap"
}

// judgeGRPC judges a latency threshold on one of r.GRPC's histograms.
func (t Threshold) judgeGRPC(r *Result) Verdict {
	v := Verdict{Threshold: t}
	if r.GRPC == nil {
		v.Note = "not a gRPC run (--grpc-call)"
		return v
	}
	if !t.Metric.Latency() {
		v.Note = t.Scope + " takes a latency (p99, mean, min, max)"
		return v
	}
	var h *hdrhistogram.Histogram
	switch t.Scope {
	case "message":
		h = r.GRPC.MessageLatency
	case "first_message":
		h = r.GRPC.FirstMessage
	default:
		h = r.GRPC.Gap
	}
	if count(h) == 0 {
		v.Note = "no " + t.Scope + " measured (message: bidirectional calls; first_message, message_gap: server streams)"
		return v
	}
	v.Value = t.latencyOf(h)
	v.OK = compare(v.Value, t.Op, t.Limit)
	return v
}
