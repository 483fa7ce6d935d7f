package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gust-http/gust/result"
)

// EndpointStats is one row of the per-endpoint table, Summary.Endpoints.
type EndpointStats struct {
	// Endpoint is the endpoint's name, e.g. "GET /users/:id".
	Endpoint string `json:"endpoint"`
	// Count counts responses.
	Count int64 `json:"count"`
	// Errors counts failed requests.
	Errors int64 `json:"errors"`
	// Status5xx counts responses with a status of 500 or more.
	Status5xx int64 `json:"status_5xx"`
	// P50us is the median latency in microseconds.
	P50us int64 `json:"p50_us"`
	// P99us is the 99th percentile latency in microseconds.
	P99us int64 `json:"p99_us"`
	// MaxUs is the highest latency in microseconds.
	MaxUs int64 `json:"max_us"`
	// LatencyHdr is the endpoint's latency histogram, encoded as
	// Summary.LatencyHdr is, so that gust merge adds shards' endpoints
	// exactly.
	LatencyHdr string `json:"latency_hdr,omitempty"`
}

// endpointStats summarizes r.Endpoints, busiest first (by responses, then
// errors, then name), leaving out those with neither.
func endpointStats(r *result.Result) []EndpointStats {
	if len(r.Endpoints) == 0 {
		return nil
	}
	rows := make([]EndpointStats, 0, len(r.Endpoints))
	for _, ep := range r.Endpoints {
		if ep.Requests == 0 && ep.Errors == 0 {
			continue
		}
		h := ep.Latency
		if h == nil {
			h = result.NewEndpointHistogram()
		}
		rows = append(rows, EndpointStats{
			Endpoint:   ep.Name,
			Count:      ep.Requests,
			Errors:     ep.Errors,
			Status5xx:  ep.Status5xx,
			P50us:      h.ValueAtQuantile(50),
			P99us:      h.ValueAtQuantile(99),
			MaxUs:      maxValue(h),
			LatencyHdr: encode(h),
		})
	}
	slices.SortStableFunc(rows, func(a, b EndpointStats) int {
		switch {
		case a.Count != b.Count:
			return cmpDesc(a.Count, b.Count)
		case a.Errors != b.Errors:
			return cmpDesc(a.Errors, b.Errors)
		}
		return strings.Compare(a.Endpoint, b.Endpoint)
	})
	return rows
}

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	return 1
}

// MaxTextEndpoints is how many endpoints the text summary lists; JSON
// lists them all.
const MaxTextEndpoints = 30

// endpointColumns head the endpoint table; the name comes last because
// its width varies.
var endpointColumns = []string{"count", "errors", "5xx", "p50", "p99", "endpoint"}

// endpointColumnWidth fits a count up to 99,999,999 and a gap.
const endpointColumnWidth = 11

// writeEndpoints writes the per-endpoint table, busiest first.
func writeEndpoints(b *strings.Builder, rows []EndpointStats) {
	cells := func(values ...string) string {
		var s strings.Builder
		for i, v := range values {
			w := endpointColumnWidth
			if i >= 3 {
				w = latencyColumnWidth
			}
			if i == len(values)-1 {
				s.WriteString(v)
				break
			}
			fmt.Fprintf(&s, "%-*s", w, v)
		}
		return s.String()
	}
	line(b, "Endpoints", cells(endpointColumns...))
	shown := rows[:min(len(rows), MaxTextEndpoints)]
	for _, r := range shown {
		p50, p99 := "-", "-"
		if r.Count > 0 {
			p50, p99 = formatMicros(float64(r.P50us)), formatMicros(float64(r.P99us))
		}
		line(b, "", cells(formatCount(r.Count), formatCount(r.Errors), formatCount(r.Status5xx), p50, p99, r.Endpoint))
	}
	if rest := rows[len(shown):]; len(rest) > 0 {
		var n int64
		for _, r := range rest {
			n += r.Count
		}
		line(b, "", fmt.Sprintf("(and %s more with %s: -o json lists them all)",
			formatCount(int64(len(rest))), plural(n, "response", "responses")))
	}
}

// writeInput writes the line that says what the log held.
func writeInput(b *strings.Builder, in *result.Input) {
	var parts []string
	parts = append(parts, plural(in.Lines, "line", "lines"))
	if in.Skipped > 0 {
		parts = append(parts, formatCount(in.Skipped)+" skipped")
	}
	if in.Filtered > 0 {
		parts = append(parts, formatCount(in.Filtered)+" filtered out")
	}
	read := plural(in.Requests, "request", "requests") + " read"
	if in.Passes > 1 {
		read += fmt.Sprintf(" in %d passes", in.Passes)
	}
	parts = append(parts, read)
	line(b, "Log", fmt.Sprintf("%s (%s): %s", in.File, in.Format, strings.Join(parts, ", ")))
}

// writeSkipped lists the first lines that could not be parsed.
func writeSkipped(b *strings.Builder, in *result.Input) {
	if in.Skipped == 0 {
		return
	}
	label := "Skipped"
	for _, s := range in.SkippedLines {
		line(b, label, fmt.Sprintf("line %d: %s: %q", s.Line, s.Reason, s.Text))
		label = ""
	}
	if int64(len(in.SkippedLines)) < in.Skipped {
		line(b, label, fmt.Sprintf("(the first %d of %s unparsable lines)", len(in.SkippedLines), formatCount(in.Skipped)))
	}
}

func encodeJSON(w io.Writer, s Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// URLs often hold '&'; keep them readable rather than \u0026.
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}
