package report

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/gust-http/gust/result"
)

// ThresholdStats is one entry of Summary.Thresholds: a threshold's verdict
// (result.Verdict).
type ThresholdStats struct {
	// Expr is the threshold as written, e.g. "p99<250ms".
	Expr string `json:"expr"`
	// Value is what was measured, in Unit; null when nothing could be
	// (see Note).
	Value *float64 `json:"value"`
	// Unit is Value's unit: "us" for latency, "ratio" for error_rate and
	// late_rate (0.001 is 0.1%), "req/s" for rps.
	Unit string `json:"unit"`
	// OK is true when the threshold passed.
	OK bool `json:"ok"`
	// Note says why nothing could be measured; empty otherwise.
	Note string `json:"note,omitempty"`
}

// newThresholdStats describes the verdicts; nil for none, so that a run
// without thresholds reads as before.
func newThresholdStats(vs []result.Verdict) []ThresholdStats {
	if len(vs) == 0 {
		return nil
	}
	out := make([]ThresholdStats, len(vs))
	for i, v := range vs {
		out[i] = ThresholdStats{Expr: v.Expr, Unit: thresholdUnit(v.Metric), OK: v.OK, Note: v.Note}
		if v.Note == "" {
			value := round(v.Value, 6)
			if v.Metric.Latency() || v.Metric == result.MetricRPS {
				value = round(v.Value, 1)
			}
			out[i].Value = &value
		}
	}
	return out
}

// thresholdUnit is the unit of a metric's value in the JSON document.
func thresholdUnit(m result.Metric) string {
	switch {
	case m.Latency():
		return "us"
	case m == result.MetricRPS:
		return "req/s"
	}
	return "ratio"
}

// verdictValue renders what a verdict measured: "1.24ms", "0.52%",
// "1,000.3 req/s", or "-" when nothing could be.
func verdictValue(v result.Verdict) string {
	switch {
	case v.Note != "":
		return "-"
	case v.Metric.Latency():
		return formatMicros(v.Value)
	case v.Metric == result.MetricRPS:
		return formatFloat(v.Value, 1) + " req/s"
	}
	return formatRatio(v.Value)
}

// formatRatio renders a fraction as a percentage with up to three
// significant digits: "0.52%", "12.5%", "0%".
func formatRatio(f float64) string {
	p := f * 100
	switch {
	case !(p > 0):
		return "0%"
	case p >= 1:
		return sig3(p) + "%"
	case p < 0.0001:
		return "<0.0001%"
	}
	return trimZeros(strconv.FormatFloat(p, 'f', 4, 64)) + "%"
}

// verdictOutcome is "ok", or "FAILED" with the reason nothing was measured.
func verdictOutcome(v result.Verdict) string {
	switch {
	case v.OK:
		return "ok"
	case v.Note != "":
		return "FAILED (" + v.Note + ")"
	}
	return "FAILED"
}

// writeThresholds writes the Thresholds section of the text summary: one
// line per threshold with its measured value and ok or FAILED.
func writeThresholds(b *strings.Builder, vs []result.Verdict) {
	width := 0
	for _, v := range vs {
		width = max(width, len(v.Expr))
	}
	label := "Thresholds"
	for _, v := range vs {
		line(b, label, fmt.Sprintf("%-*s  %-14s %s", width, v.Expr, verdictValue(v), verdictOutcome(v)))
		label = ""
	}
}

// writeThresholdsHTML writes the verdicts as a table, failures flagged.
func writeThresholdsHTML(b *strings.Builder, vs []result.Verdict) {
	b.WriteString("<table><tr><th class=\"l\">threshold</th><th>measured</th><th class=\"l\">verdict</th></tr>")
	for _, v := range vs {
		class := "l"
		if !v.OK {
			class = "l flag"
		}
		fmt.Fprintf(b, "<tr><td class=\"l\"><code>%s</code></td><td>%s</td><td class=\"%s\">%s</td></tr>",
			html.EscapeString(v.Expr), html.EscapeString(verdictValue(v)), class, html.EscapeString(verdictOutcome(v)))
	}
	b.WriteString("</table>\n")
}
