package lab

import (
	"fmt"
	"io"
	"strings"

	"github.com/gust-http/gust/report/table"
)

// WriteCompare writes a markdown table of the change from run a to run b
// for every (server, scenario) cell both ran: req/s, p99 and CPU per request.
func WriteCompare(w io.Writer, a, b *Results) error {
	type key struct{ server, scenario string }
	before := map[key]Cell{}
	for _, c := range a.Cells {
		if c.Error == "" {
			before[key{c.Server, c.Scenario}] = c
		}
	}
	change := func(x, y float64) string {
		if x <= 0 || y < 0 {
			return "-"
		}
		return fmt.Sprintf("%+.1f%%", 100*(y-x)/x)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "A: `%s` on %s\nB: `%s` on %s\n\n", a.Meta.Command, a.Meta.Date, b.Meta.Command, b.Meta.Date)
	table.MarkdownHead(&sb, "server", "scenario", "req/s A", "req/s B", "change", "p99 ms A", "p99 ms B", "change",
		"CPU us/req A", "CPU us/req B", "change")
	n := 0
	for _, y := range b.Cells {
		x, ok := before[key{y.Server, y.Scenario}]
		if !ok || y.Error != "" {
			continue
		}
		n++
		table.MarkdownRow(&sb, y.Server, y.Scenario,
			fmt.Sprintf("%.0f", x.RPS), fmt.Sprintf("%.0f", y.RPS), change(x.RPS, y.RPS),
			num(x.Latency.P99/1000, 2), num(y.Latency.P99/1000, 2), change(x.Latency.P99, y.Latency.P99),
			num(x.CPUUsPerReq, 2), num(y.CPUUsPerReq, 2), change(x.CPUUsPerReq, y.CPUUsPerReq))
	}
	if n == 0 {
		return fmt.Errorf("the two runs have no (server, scenario) cell in common")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
