package report

import (
	"strings"

	"github.com/gust-http/gust/report/table"
	"github.com/gust-http/gust/result"
)

// writeFlowsHTML writes the flows section of a run of user journeys, as
// the text report's: the iterations, their durations, each step's status
// codes, and each check of each step, a failed one flagged.
func writeFlowsHTML(b *strings.Builder, f *result.Flows) {
	facts := []fact{{"Iterations", iterationsText(f)}, {"Checks", checksText(f)}}
	writeFactsHTML(b, facts)
	if h := orEmpty(f.Duration); h.TotalCount() > 0 {
		b.WriteString("<table>")
		htmlRow(b, true, false, "iteration", "p50", "p90", "p99", "max")
		htmlRow(b, false, false, "duration", formatMicros(float64(h.ValueAtQuantile(50))), formatMicros(float64(h.ValueAtQuantile(90))),
			formatMicros(float64(h.ValueAtQuantile(99))), formatMicros(float64(h.Max())))
		b.WriteString("</table>\n")
	}
	if len(f.Steps) > 0 {
		b.WriteString("<table>")
		leftRow(b, true, 2, "step", "answers by status")
		for _, st := range f.Steps {
			leftRow(b, false, 2, st.Name, statusText(st.Status))
		}
		b.WriteString("</table>\n")
	}
	if len(f.Checks) > 0 {
		b.WriteString("<table>")
		leftRow(b, true, 2, "step", "check", "passed", "failed", "share passed")
		for _, c := range f.Checks {
			cells := table.Cells(c.Step, c.Check, formatCount(c.Passed), formatCount(c.Failed), percent(c.Passed, c.Passed+c.Failed))
			cells[0].Attrs, cells[1].Attrs = `class="l"`, `class="l"`
			if c.Failed > 0 {
				cells[3].Attrs = `class="flag"`
			}
			table.HTMLRow(b, false, cells...)
		}
		b.WriteString("</table>\n")
	}
}

// leftRow writes one table row of cells, its first left cells (names)
// aligned left, as headers when head is set.
func leftRow(b *strings.Builder, head bool, left int, cells ...string) {
	cs := table.Cells(cells...)
	for i := range min(left, len(cs)) {
		cs[i].Attrs = `class="l"`
	}
	table.HTMLRow(b, head, cs...)
}
