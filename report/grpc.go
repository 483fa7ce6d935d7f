package report

import (
	"fmt"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// GRPCStats is Summary.GRPC: a gRPC run's calls by status name and the
// response messages read, as result.GRPC counts them; left out for other
// runs. Streamed calls add the messages sent, the rates, and the
// histograms of result.GRPC that hold values, each described in
// microseconds as Latency is and encoded as LatencyHdr is, so that gust
// merge adds them exactly; an absent histogram is an empty one.
type GRPCStats struct {
	// Status counts the calls by status name (OK, UNAVAILABLE, ...).
	Status map[string]int64 `json:"status"`
	// Messages counts the response messages.
	Messages int64 `json:"messages"`
	// MessagesPerS is Messages over the run's duration, to 0.1; left out
	// unless a call streamed.
	MessagesPerS float64 `json:"messages_per_s,omitempty"`
	// Sent counts the request messages of client-streaming and
	// bidirectional calls, SentPerS the same over the run's duration.
	Sent     int64   `json:"sent,omitempty"`
	SentPerS float64 `json:"sent_per_s,omitempty"`
	// FirstMessage, MessageGap and MessageLatency describe result.GRPC's
	// FirstMessage, Gap and MessageLatency (a bidirectional call's time
	// from each message sent to its echo).
	FirstMessage   *Stats `json:"first_message,omitempty"`
	MessageGap     *Stats `json:"message_gap,omitempty"`
	MessageLatency *Stats `json:"message_latency,omitempty"`
	// The histograms, encoded.
	FirstMessageHdr   string `json:"first_message_hdr,omitempty"`
	MessageGapHdr     string `json:"message_gap_hdr,omitempty"`
	MessageLatencyHdr string `json:"message_latency_hdr,omitempty"`
}

// newGRPCStats describes g over a run of secs seconds; nil for nil.
func newGRPCStats(g *result.GRPC, secs float64) *GRPCStats {
	if g == nil {
		return nil
	}
	out := &GRPCStats{Status: make(map[string]int64, len(g.Status)), Messages: g.Messages, Sent: g.Sent}
	for name, n := range g.Status {
		out.Status[name] = n
	}
	if g.Streamed() && secs > 0 {
		out.MessagesPerS = round(float64(g.Messages)/secs, 1)
		out.SentPerS = round(float64(g.Sent)/secs, 1)
	}
	for _, h := range grpcHistograms(g, out) {
		if *h.hist != nil && (*h.hist).TotalCount() > 0 {
			st := newStats(*h.hist)
			*h.stats, *h.hdr = &st, encode(*h.hist)
		}
	}
	return out
}

// grpcHistogram ties one of result.GRPC's histograms to its fields in
// GRPCStats.
type grpcHistogram struct {
	name  string
	hist  **hdrhistogram.Histogram
	stats **Stats
	hdr   *string
}

// grpcHistograms lists g's histograms with s's fields for them.
func grpcHistograms(g *result.GRPC, s *GRPCStats) []grpcHistogram {
	return []grpcHistogram{
		{"first_message_hdr", &g.FirstMessage, &s.FirstMessage, &s.FirstMessageHdr},
		{"message_gap_hdr", &g.Gap, &s.MessageGap, &s.MessageGapHdr},
		{"message_latency_hdr", &g.MessageLatency, &s.MessageLatency, &s.MessageLatencyHdr},
	}
}

// grpcResult rebuilds result.GRPC from a summary's GRPC (nil for nil).
func grpcResult(s *GRPCStats) (*result.GRPC, error) {
	if s == nil {
		return nil, nil
	}
	out := result.NewGRPC()
	for name, n := range s.Status {
		if n < 0 {
			return nil, fmt.Errorf("grpc.status.%s is negative (%d): the result was changed or cut", name, n)
		}
		out.Status[name] = n
	}
	if s.Messages < 0 {
		return nil, fmt.Errorf("grpc.messages is negative (%d): the result was changed or cut", s.Messages)
	}
	out.Messages = s.Messages
	if s.Sent < 0 {
		return nil, fmt.Errorf("grpc.sent is negative (%d): the result was changed or cut", s.Sent)
	}
	out.Sent = s.Sent
	for _, h := range grpcHistograms(out, s) {
		if *h.hdr == "" {
			continue // none measured: NewGRPC's empty histogram
		}
		d, err := decodeHistogram("grpc."+h.name, *h.hdr, nil)
		if err != nil {
			return nil, err
		}
		*h.hist = d
	}
	if n := out.MessageLatency.TotalCount(); n > out.Messages {
		return nil, fmt.Errorf("grpc.message_latency_hdr holds %d values but messages is %d: the result was changed or cut", n, out.Messages)
	}
	return out, nil
}

// grpcFacts is the gRPC line of Text: calls by status, OK first, and
// messages; none for other runs.
func grpcFacts(r *result.Result) []fact {
	g := r.GRPC
	if g == nil {
		return nil
	}
	var parts []string
	for _, name := range g.Names() {
		parts = append(parts, fmt.Sprintf("%s %s", name, formatCount(g.Status[name])))
	}
	if len(parts) == 0 {
		parts = append(parts, "no call ended")
	}
	line := fmt.Sprintf("%s; %s", strings.Join(parts, ", "), plural(g.Messages, "response message", "response messages"))
	facts := []fact{{"gRPC", line}}
	if !g.Streamed() {
		return facts
	}
	secs := r.Duration.Seconds()
	rate := func(n int64) string {
		if secs <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%s/s)", formatCount(int64(float64(n)/secs)))
	}
	msgs := fmt.Sprintf("%s received%s", formatCount(g.Messages), rate(g.Messages))
	if g.Sent > 0 { // a client stream's
		msgs = fmt.Sprintf("%s sent%s, %s", formatCount(g.Sent), rate(g.Sent), msgs)
	}
	facts = append(facts, fact{"Messages", msgs})
	for _, h := range []struct {
		name string
		hist *hdrhistogram.Histogram
	}{{"Per message", g.MessageLatency}, {"First msg", g.FirstMessage}, {"Message gap", g.Gap}} {
		if h.hist == nil || h.hist.TotalCount() == 0 {
			continue
		}
		st := newStats(h.hist)
		facts = append(facts, fact{h.name, fmt.Sprintf("p50 %s, p99 %s, max %s", formatMicros(float64(st.P50)), formatMicros(float64(st.P99)), formatMicros(float64(st.Max)))})
	}
	return facts
}
