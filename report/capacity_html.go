package report

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/gust-http/gust/report/chart"
	"github.com/gust-http/gust/result"
)

// capacityHTML writes a capacity search as one self-contained page: its
// facts, latency (p50, p99, p99.9) against achieved throughput with the
// objective's latency limits as dashed lines, and the steps table.
func capacityHTML(w io.Writer, c *result.Capacity) error {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gust: capacity search</title>\n<style>%s</style></head>\n<body>\n", htmlStyle)
	b.WriteString("<h1>gust load --find-max</h1>\n")
	writeFactsHTML(&b, capacityFacts(c))
	b.WriteString("<h2>Latency against throughput</h2>\n")
	b.WriteString(capacityChart(c).SVG())
	b.WriteString("\n<p>Each point is a step, at the rate it achieved; steps are joined in order of their rates.</p>\n")
	b.WriteString("<h2>Steps</h2>\n<table>")
	htmlRow(&b, true, true, capacityColumns...)
	for i, s := range c.Steps {
		cells := capacityCells(i, s)
		class := "l"
		if !s.OK {
			class = "l flag"
		}
		b.WriteString("<tr>")
		for _, cell := range cells[:len(cells)-1] {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(cell))
		}
		fmt.Fprintf(&b, "<td class=\"%s\">%s</td></tr>", class, html.EscapeString(cells[len(cells)-1]))
	}
	b.WriteString("</table>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// capacityChart plots each step's p50, p99 and p99.9 at its achieved
// rate, steps sorted by rate asked.
func capacityChart(c *result.Capacity) chart.Scatter {
	steps := slices.Clone(c.Steps)
	slices.SortStableFunc(steps, func(a, b result.CapacityStep) int { return cmp.Compare(a.Rate, b.Rate) })
	names := []string{"p50", "p99", "p99.9"}
	series := make([]chart.XYSeries, len(names))
	for k, name := range names {
		series[k] = chart.XYSeries{Name: name, Color: chart.Color(2 * k)}
	}
	for _, s := range steps {
		l := newStats(orEmpty(s.Result.Latency))
		for k, v := range []int64{l.P50, l.P99, l.P999} {
			series[k].X = append(series[k].X, s.Result.RPS())
			series[k].Y = append(series[k].Y, float64(v))
		}
	}
	var refs []chart.Ref
	for _, t := range c.SLO {
		if t.Metric.Latency() {
			refs = append(refs, chart.Ref{Label: t.Expr, Y: t.Limit})
		}
	}
	return chart.Scatter{Title: "latency against achieved throughput", XTitle: "achieved req/s", YTitle: "latency (log scale)",
		XLabel: chart.Short, YLabel: formatMicros, Series: series, Refs: refs}
}
