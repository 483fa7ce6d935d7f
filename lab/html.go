package lab

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gust-http/gust/report/chart"
	"github.com/gust-http/gust/report/table"
)

// metric is one chart per scenario group.
type metric struct {
	title, unit string
	value       func(Cell) float64 // negative: unknown
}

var metrics = []metric{
	{"req/s", "req/s", func(c Cell) float64 { return c.RPS }},
	{"server CPU per request", "us/req", func(c Cell) float64 { return c.CPUUsPerReq }},
	{"p99 latency", "ms", func(c Cell) float64 {
		if c.Latency.P99 < 0 {
			return -1
		}
		return c.Latency.P99 / 1000
	}},
	{"peak RSS", "MB", func(c Cell) float64 {
		if c.RSSPeakBytes < 0 {
			return -1
		}
		return float64(c.RSSPeakBytes) / (1 << 20)
	}},
	{"goroutines (max)", "goroutines", func(c Cell) float64 { return float64(c.GoroutinesMax) }},
}

// servers returns the servers of cells in order of first appearance.
func servers(cells []Cell) []string {
	var ss []string
	for _, c := range cells {
		if !slices.Contains(ss, c.Server) {
			ss = append(ss, c.Server)
		}
	}
	return ss
}

// WriteHTML writes report.html: self-contained (inline SVG charts and CSS,
// no scripts, nothing fetched), one row of charts per scenario group, then
// the tables of report.md.
func WriteHTML(w io.Writer, r *Results) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>gust bench</title><style>
body{font-family:sans-serif;margin:24px;color:#222}h2{margin-top:32px;border-bottom:1px solid #ccc}
.charts{display:flex;flex-wrap:wrap;gap:8px}table{border-collapse:collapse;font-size:13px;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.meta{color:#555;max-width:1000px}.err{color:#a00}svg .grid{stroke:#ddd}
</style></head><body><h1>gust bench</h1>`)
	m := r.Meta
	fmt.Fprintf(&b, `<p class="meta"><code>%s</code> on %s (%s). Servers pinned to CPUs %s, load generator (%s) to CPUs %s; a fresh server per cell; median of %d run(s) by req/s; %.0f s in all.</p>`,
		html.EscapeString(m.Command), html.EscapeString(m.Date), html.EscapeString(m.GoVersion), m.ServerCPUs,
		html.EscapeString(m.Loader), m.ClientCPUs, max(m.Repeat, 1), m.TookS)
	colors := map[string]string{}
	for i, s := range servers(r.Cells) {
		colors[s] = chart.Color(i)
	}
	for _, g := range groups(r.Cells) {
		var cells []Cell
		for _, c := range r.Cells {
			if c.Group == g && c.Error == "" {
				cells = append(cells, c)
			}
		}
		fmt.Fprintf(&b, "<h2>%s</h2>", html.EscapeString(g))
		if len(cells) == 0 {
			b.WriteString(`<p class="err">No cell of this group ran.</p>`)
			continue
		}
		var conns []int
		for _, c := range cells {
			if !slices.Contains(conns, c.Connections) {
				conns = append(conns, c.Connections)
			}
		}
		slices.Sort(conns)
		cats := make([]string, len(conns))
		for i, c := range conns {
			cats[i] = strconv.Itoa(c)
		}
		b.WriteString(`<div class="charts">`)
		for mi, mt := range metrics {
			var ss []chart.Series
			for _, srv := range servers(cells) {
				s := chart.Series{Name: srv, Color: colors[srv], Values: make([]float64, len(conns))}
				known := false
				for i := range s.Values {
					s.Values[i] = math.NaN()
				}
				for _, c := range cells {
					if c.Server == srv {
						if v := mt.value(c); v >= 0 {
							s.Values[slices.Index(conns, c.Connections)] = v
							known = true
						}
					}
				}
				if known {
					ss = append(ss, s)
				}
			}
			if mi == 0 && cells[0].IdealRPS > 0 {
				ideal := chart.Series{Name: "ideal (C/delay)", Values: make([]float64, len(conns)), Ideal: true}
				for i := range ideal.Values {
					ideal.Values[i] = math.NaN()
				}
				for _, c := range cells {
					ideal.Values[slices.Index(conns, c.Connections)] = c.IdealRPS
				}
				ss = append(ss, ideal)
			}
			if len(ss) == 0 {
				continue
			}
			b.WriteString(chart.Bars{Title: mt.title, Unit: mt.unit, XTitle: "connections", Categories: cats, Series: ss}.SVG())
		}
		b.WriteString(`</div>`)
	}
	b.WriteString("<h2>All cells</h2><table>")
	table.HTMLRow(&b, true, table.Cells("server", "scenario", "conns", "req/s", "ideal req/s", "p50 ms", "p99 ms", "p99.9 ms",
		"errors", "CPU us/req", "peak RSS MB", "RSS/conn KB", "goroutines max", "GCs")...)
	for _, c := range r.Cells {
		if c.Error != "" {
			table.HTMLRow(&b, false, append(table.Cells(c.Server, c.Scenario, strconv.Itoa(c.Connections)),
				table.Cell{Text: c.Error, Attrs: `class="err" colspan="11" style="text-align:left"`})...)
			continue
		}
		ideal := "-"
		if c.IdealRPS > 0 {
			ideal = fmt.Sprintf("%.0f", c.IdealRPS)
		}
		table.HTMLRow(&b, false, table.Cells(c.Server, c.Scenario, strconv.Itoa(c.Connections), rateCell(c), ideal,
			num(c.Latency.P50/1000, 2), num(c.Latency.P99/1000, 2), num(c.Latency.P999/1000, 2), strconv.FormatInt(c.Errors, 10),
			num(c.CPUUsPerReq, 2), mb(c.RSSPeakBytes), kb(c.RSSPerConnByte), inum(c.GoroutinesMax), inum(c.GCCount))...)
	}
	b.WriteString("</table>")
	var md strings.Builder
	writeProfilesMarkdown(&md, r.Cells)
	if md.Len() > 0 {
		b.WriteString("<h2>CPU profiles</h2><pre>" + html.EscapeString(md.String()) + "</pre>")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
