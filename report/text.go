package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gust-http/gust/result"
)

// labelWidth is the width of the label column of the text summary.
const labelWidth = 12

// latencyColumns head the latency table, in the order of Stats' fields.
var latencyColumns = []string{"min", "mean", "stddev", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max"}

// latencyColumnWidth fits every value formatMicros returns, plus a gap.
const latencyColumnWidth = 9

// Text writes the human summary: target and load model, duration,
// throughput, a latency table and distribution, connect times, TLS
// handshakes (over TLS only: what was negotiated, handshake times, full and
// resumed, failures by class), schedule lateness (open model only), status
// codes, errors and connection counts.
// Durations are shown as "85us", "1.24ms" or "1.002s" and counts with
// thousands separators. A run without responses says "no responses" in
// place of the latency table.
//
// A replay's result (with Input) also says what was read from the log,
// after the target, and lists the skipped lines at the end. A run with
// endpoints (a replay) also gets a table of them, busiest first:
// responses, errors, responses with a 5xx status, p50 and p99. A merged
// result (result.Merge) gets a table of its agents: shard, start after the
// first agent, duration, responses, errors, p99, and whether it started
// late, ran short or was interrupted. A judged result (with Thresholds)
// ends with each threshold, its measured value and ok or FAILED.
func Text(w io.Writer, r *result.Result) error {
	var b strings.Builder
	in := r.Input
	line(&b, "Target", strings.TrimSpace(r.Method+" "+r.URL))
	if in != nil {
		writeInput(&b, in)
	}
	for _, f := range runFacts(r) {
		line(&b, f.label, f.value)
	}
	b.WriteByte('\n')

	latency := orEmpty(r.Latency)
	if latency.TotalCount() == 0 {
		line(&b, "Latency", "no responses")
	} else {
		writeLatencyTable(&b, newStats(latency))
		b.WriteString("\nLatency distribution\n")
		writeDistribution(&b, latency)
	}
	b.WriteByte('\n')

	for _, f := range outcomeFacts(r) {
		line(&b, f.label, f.value)
	}
	if rows := endpointStats(r); len(rows) > 0 {
		b.WriteByte('\n')
		writeEndpoints(&b, rows)
	}
	if r.Flows != nil {
		b.WriteByte('\n')
		writeFlows(&b, r.Flows)
	}
	if len(r.Agents) > 0 {
		b.WriteByte('\n')
		writeAgents(&b, r.Agents)
	}
	if in != nil && in.Skipped > 0 {
		b.WriteByte('\n')
		writeSkipped(&b, in)
	}
	if len(r.Thresholds) > 0 {
		b.WriteByte('\n')
		writeThresholds(&b, r.Thresholds)
	}

	_, err := io.WriteString(w, b.String())
	return err
}

// fact is one labelled line of the summary.
type fact struct{ label, value string }

// runFacts describe how the load was applied and what came of it overall:
// Load, Duration, Requests and Transfer.
func runFacts(r *result.Result) []fact {
	duration := formatDuration(r.Duration)
	if r.Interrupted {
		duration += " (interrupted)"
	}
	return []fact{
		{"Load", loadDescription(r)},
		{"Duration", duration},
		{"Requests", requestsFact(r)},
		{"Transfer", fmt.Sprintf("%s read (%s/s), %s written",
			formatBytes(float64(r.BytesRead)), formatBytes(perSecond(r.BytesRead, r)), formatBytes(float64(r.BytesWritten)))},
	}
}

// outcomeFacts describe what came after the latencies: Connect (when
// connect times were measured), TLS and Handshakes (over TLS only, see
// tlsFacts), Schedule (open model only), Status, Errors, HTTP/2 (when a
// connection spoke it), Protocols (a --proto auto run's connections per
// protocol), the WebSocket section (a ws:// run's, see webSocketFacts)
// and Connections.
func outcomeFacts(r *result.Result) []fact {
	var facts []fact
	if r.Connect != nil && r.Connect.TotalCount() > 0 {
		c := newStats(r.Connect)
		facts = append(facts, fact{"Connect", fmt.Sprintf("p50 %s, p99 %s, max %s (%s)",
			formatMicros(float64(c.P50)), formatMicros(float64(c.P99)), formatMicros(float64(c.Max)),
			plural(r.Connect.TotalCount(), "connection", "connections"))})
	}
	facts = append(facts, tlsFacts(r.TLS)...)
	facts = append(facts, quicFacts(r.QUIC)...)
	if r.Scheduled() {
		facts = append(facts, fact{"Schedule", schedule(r)})
	}
	facts = append(facts,
		fact{"Status", statusCounts(r.Status)},
		fact{"Errors", errorCounts(r.Errors)},
	)
	if f, ok := http2Fact(r); ok {
		facts = append(facts, f)
	}
	if f, ok := protocolsFact(r); ok {
		facts = append(facts, f)
	}
	facts = append(facts, webSocketFacts(r)...)
	facts = append(facts, streamFacts(r)...)
	facts = append(facts, grpcFacts(r)...)
	conns := fmt.Sprintf("%s opened, %s reopened", formatCount(r.Connects), formatCount(r.Reconnects))
	if r.Retried > 0 {
		conns += fmt.Sprintf(", %s retried (closed unanswered)", formatCount(r.Retried))
	}
	return append(facts, fact{"Connections", conns})
}

// line writes one labelled line of the summary.
func line(b *strings.Builder, label, value string) {
	b.WriteString(strings.TrimRight(fmt.Sprintf("%-*s%s", labelWidth, label, value), " ") + "\n")
}

// loadDescription says how the load was applied, e.g. "50 connections on 2
// loops, keep-alive, closed model (as fast as possible)".
func loadDescription(r *result.Result) string {
	who := plural(int64(r.Connections), "connection", "connections")
	if r.Loops > 0 {
		who += " on " + plural(int64(r.Loops), "loop", "loops")
	}
	switch {
	case len(r.Agents) > 0:
		who += " across " + plural(int64(len(r.Agents)), "agent", "agents")
	case r.Shard.Sharded():
		who += " (shard " + r.Shard.String() + ")"
	}
	parts := []string{who, "keep-alive"}
	if !r.KeepAlive {
		parts[1] = "keep-alive off"
	}
	if p := protocolParts(r); p != nil {
		parts = append(parts[:1], p...)
	}
	if p := webSocketParts(r); p != nil {
		parts = append(parts[:1], p...)
	}
	if r.Pipeline > 1 {
		parts = append(parts, fmt.Sprintf("pipeline %d", r.Pipeline))
	}
	if r.WebSocket != nil && r.WebSocket.Hold {
		return strings.Join(parts, ", ") // no messages: no load model
	}
	if r.Flows != nil {
		parts = append(parts, "user journeys: "+r.Flows.Model)
	} else if r.Stages != "" {
		parts = append(parts, "open model in stages "+r.Stages)
	} else if r.Rate > 0 {
		parts = append(parts, "open model at "+formatRate(r.Rate)+" req/s")
	} else if r.Speed > 0 {
		parts = append(parts, "open model at the log's times x"+formatSpeed(r.Speed))
	} else {
		parts = append(parts, "closed model (as fast as possible)")
	}
	return strings.Join(parts, ", ")
}

// requestsFact counts the responses and their rate, or a WebSocket run's
// messages (round trips) and theirs.
func requestsFact(r *result.Result) string {
	if r.WebSocket != nil {
		return fmt.Sprintf("%s, %s msg/s", plural(r.Requests, "message", "messages"), formatFloat(r.RPS(), 1))
	}
	return fmt.Sprintf("%s, %s req/s", plural(r.Requests, "response", "responses"), formatFloat(r.RPS(), 1))
}

// perSecond returns n per second of r's duration, or 0 for an empty one.
func perSecond(n int64, r *result.Result) float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(n) / r.Duration.Seconds()
}

// latencyCells formats s in the order of latencyColumns.
func latencyCells(s Stats) []string {
	values := []float64{
		float64(s.Min), s.Mean, s.Stddev,
		float64(s.P50), float64(s.P75), float64(s.P90), float64(s.P99), float64(s.P999), float64(s.P9999),
		float64(s.Max),
	}
	cells := make([]string, len(values))
	for i, v := range values {
		cells[i] = formatMicros(v)
	}
	return cells
}

// writeLatencyTable writes the latency header and its row of values.
func writeLatencyTable(b *strings.Builder, s Stats) {
	cells := latencyCells(s)
	line(b, "Latency", columns(latencyColumns))
	line(b, "", columns(cells))
}

// columns lays cells out latencyColumnWidth apart, without trailing
// spaces.
func columns(cells []string) string {
	var b strings.Builder
	for _, c := range cells {
		fmt.Fprintf(&b, "%-*s", latencyColumnWidth, c)
	}
	return strings.TrimRight(b.String(), " ")
}

// schedule describes, in the open model, how many requests started late.
func schedule(r *result.Result) string {
	lateness := orEmpty(r.Lateness)
	threshold := formatMicros(float64(result.LateThreshold.Microseconds()))
	switch {
	case lateness.TotalCount() == 0:
		return "no requests were sent"
	case r.Late == 0:
		return fmt.Sprintf("all requests started on time (none more than %s late)", threshold)
	}
	return fmt.Sprintf("%s of %s requests started more than %s late (p99 %s, max %s)",
		formatCount(r.Late), formatCount(lateness.TotalCount()), threshold,
		formatMicros(float64(lateness.ValueAtQuantile(99))), formatMicros(float64(lateness.Max())))
}

// statusCounts lists responses per status code in code order, e.g.
// "200: 600,100   503: 23".
func statusCounts(status map[int]int64) string {
	codes := make([]int, 0, len(status))
	for code, n := range status {
		if n != 0 {
			codes = append(codes, code)
		}
	}
	if len(codes) == 0 {
		return "none"
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%d: %s", code, formatCount(status[code]))
	}
	return strings.Join(parts, "   ")
}

// errorCounts lists the kinds of error that occurred in report order, e.g.
// "connect_refused: 3, read_timeout: 1", or "none".
func errorCounts(errs map[result.ErrorKind]int64) string {
	var parts []string
	for _, kind := range result.ErrorKinds() {
		if n := errs[kind]; n != 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", kind, formatCount(n)))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
