package report

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/gust-http/gust/report/chart"
	"github.com/gust-http/gust/report/table"
	"github.com/gust-http/gust/result"
)

// htmlStyle is the page's whole style sheet: the page fetches nothing.
const htmlStyle = `body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}
h2{margin-top:28px;border-bottom:1px solid #ccc}code{font-size:15px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:middle}
th{background:#f4f4f4}td.l,th.l{text-align:left}table.facts th{text-align:left}
table.facts td{text-align:left}.flag{color:#a00;font-weight:bold}
svg.chart{display:block;margin:8px 0;font-size:11px}svg .title{font-weight:bold;font-size:12px}
svg .grid{stroke:#ddd}`

// HTML writes the report as one self-contained HTML page (inline CSS and
// SVG, no script, nothing fetched): what Text says, as tables, with the
// latency distribution as bars and the timeline as two charts (responses
// per second; p50 and p99 per second). A replay gets its endpoint table
// and a merged result its agents table, as in Text; a run of user
// journeys its flows section; a judged result its thresholds.
func HTML(w io.Writer, r *result.Result) error {
	var b strings.Builder
	target := strings.TrimSpace(r.Method + " " + r.URL)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gust: %s</title>\n<style>%s</style></head>\n<body>\n",
		html.EscapeString(target), htmlStyle)
	fmt.Fprintf(&b, "<h1>gust load</h1>\n<p><code>%s</code>, started %s</p>\n",
		html.EscapeString(target), html.EscapeString(r.Start.UTC().Format(StartLayout)))
	writeFactsHTML(&b, runFacts(r))

	b.WriteString("<h2>Latency</h2>\n")
	latency := orEmpty(r.Latency)
	if latency.TotalCount() == 0 {
		b.WriteString("<p>No responses.</p>\n")
	} else {
		writeLatencyHTML(&b, newStats(latency))
		writeDistributionHTML(&b, distribution(latency, distBuckets), latency.TotalCount())
	}
	writeFactsHTML(&b, outcomeFacts(r))

	b.WriteString("<h2>Timeline</h2>\n")
	writeTimelineHTML(&b, r.Timeline)
	if rows := endpointStats(r); len(rows) > 0 {
		b.WriteString("<h2>Endpoints</h2>\n")
		writeEndpointsHTML(&b, rows)
	}
	if r.Flows != nil {
		b.WriteString("<h2>Flows</h2>\n")
		writeFlowsHTML(&b, r.Flows)
	}
	if len(r.Agents) > 0 {
		b.WriteString("<h2>Agents</h2>\n")
		writeAgentsHTML(&b, r.Agents)
	}
	if len(r.Thresholds) > 0 {
		b.WriteString("<h2>Thresholds</h2>\n")
		writeThresholdsHTML(&b, r.Thresholds)
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFactsHTML writes labelled lines as a two-column table.
func writeFactsHTML(b *strings.Builder, facts []fact) {
	b.WriteString(`<table class="facts">`)
	for _, f := range facts {
		fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td></tr>", html.EscapeString(f.label), html.EscapeString(f.value))
	}
	b.WriteString("</table>\n")
}

// htmlRow writes one table row of cells, as headers when head is set;
// with nameLast the last cell, a name, is aligned left.
func htmlRow(b *strings.Builder, head, nameLast bool, cells ...string) {
	cs := table.Cells(cells...)
	if nameLast && len(cs) > 0 {
		cs[len(cs)-1].Attrs = `class="l"`
	}
	table.HTMLRow(b, head, cs...)
}

func writeLatencyHTML(b *strings.Builder, s Stats) {
	cells := latencyCells(s)
	b.WriteString("<table>")
	htmlRow(b, true, false, latencyColumns...)
	htmlRow(b, false, false, cells...)
	b.WriteString("</table>\n")
}

func writeDistributionHTML(b *strings.Builder, buckets []bucket, total int64) {
	var most int64
	for _, k := range buckets {
		most = max(most, k.count)
	}
	b.WriteString("<table><tr><th>latency</th><th class=\"l\">responses</th><th>share</th><th>count</th></tr>")
	for _, k := range buckets {
		fmt.Fprintf(b, "<tr><td>&le; %s</td><td class=\"l\">%s</td><td>%s</td><td>%s</td></tr>",
			html.EscapeString(formatMicros(float64(k.upTo))), chart.HBar(k.count, most),
			html.EscapeString(percent(k.count, total)), html.EscapeString(formatCount(k.count)))
	}
	b.WriteString("</table>\n")
}

func writeTimelineHTML(b *strings.Builder, timeline []result.Second) {
	n := 0
	for _, s := range timeline {
		n = max(n, s.Second+1)
	}
	rps := make([]float64, n)
	target := make([]float64, n)
	p50 := make([]float64, n)
	p99 := make([]float64, n)
	targeted := false
	for _, s := range timeline {
		rps[s.Second] = float64(s.Requests)
		target[s.Second] = s.TargetRate
		targeted = targeted || s.TargetRate > 0
		p50[s.Second] = float64(s.P50us)
		p99[s.Second] = float64(s.P99us)
	}
	series := []chart.Series{{Name: "responses", Color: chart.Color(0), Values: rps}}
	if targeted {
		// The open model's target beside what came back.
		series = append(series, chart.Series{Name: "target", Color: chart.Color(2), Values: target})
	}
	b.WriteString(chart.Timeline("responses per second", series,
		func(v float64) string { return formatFloat(v, 0) }))
	b.WriteString("\n")
	b.WriteString(chart.Timeline("latency per second", []chart.Series{{Name: "p50", Color: chart.Color(0), Values: p50}, {Name: "p99", Color: chart.Color(2), Values: p99}},
		formatMicros))
	b.WriteString("\n")
}

func writeEndpointsHTML(b *strings.Builder, rows []EndpointStats) {
	b.WriteString("<table>")
	htmlRow(b, true, true, endpointColumns...)
	for _, r := range rows {
		p50, p99 := "-", "-"
		if r.Count > 0 {
			p50, p99 = formatMicros(float64(r.P50us)), formatMicros(float64(r.P99us))
		}
		htmlRow(b, false, true, formatCount(r.Count), formatCount(r.Errors), formatCount(r.Status5xx), p50, p99, r.Endpoint)
	}
	b.WriteString("</table>\n")
}

func writeAgentsHTML(b *strings.Builder, agents []result.Agent) {
	fmt.Fprintf(b, "<p>%s</p>\n<table>", html.EscapeString(agentsNote(agents)))
	htmlRow(b, true, true, agentColumns...)
	for _, a := range agents {
		cells := table.Cells(agentCells(a)...)
		if a.Flagged() {
			cells[len(cells)-2].Attrs = `class="flag"` // flags
		}
		cells[len(cells)-1].Attrs = `class="l"`
		table.HTMLRow(b, false, cells...)
	}
	b.WriteString("</table>\n")
}
