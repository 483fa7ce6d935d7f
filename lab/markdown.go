package lab

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gust-http/gust/report/table"
)

// groups returns the scenario groups of cells in order of first appearance.
func groups(cells []Cell) []string {
	var gs []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c.Group] {
			seen[c.Group] = true
			gs = append(gs, c.Group)
		}
	}
	return gs
}

// num formats a measurement, "-" when unknown (negative).
// rateCell is a cell's req/s, or for a cell that held connections
// instead of sending requests, how many it held.
func rateCell(c Cell) string {
	if c.Hold {
		return fmt.Sprintf("held %d", c.Held)
	}
	return fmt.Sprintf("%.0f", c.RPS)
}

func num(v float64, prec int) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// kernelNum is a cell's kernel CPU per request, "-" when unknown (-1, or
// 0 from a results.json written before it was sampled).
func kernelNum(c Cell) string {
	if c.CPUKernelUsPerReq <= 0 {
		return "-"
	}
	return num(c.CPUKernelUsPerReq, 2)
}

func inum(v int64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprint(v)
}

func mb(v int64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(v)/(1<<20))
}

func kb(v int64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(v)/1024)
}

// WriteMarkdown writes report.md: how the matrix ran, then one table per
// scenario group, and the cells that failed.
func WriteMarkdown(w io.Writer, r *Results) error {
	var b strings.Builder
	m := r.Meta
	fmt.Fprintf(&b, "# gust bench\n\n")
	fmt.Fprintf(&b, "`%s` on %s (%s", m.Command, m.Date, m.GoVersion)
	if m.Kernel != "" {
		fmt.Fprintf(&b, ", Linux %s", m.Kernel)
	}
	fmt.Fprintf(&b, "), %.0f s.\n\n", m.TookS)
	fmt.Fprintf(&b, "Servers pinned to CPUs %s (GOMAXPROCS %d), load generator (%s) pinned to CPUs %s; "+
		"each cell on a fresh server, median of %d run(s) by req/s; open-file limit %d.\n"+
		"Server CPU is utime+stime from /proc over the measured window, and kernel its stime part; RSS per connection is (peak RSS - RSS when idle) / connections.\n",
		m.ServerCPUs, strings.Count(m.ServerCPUs, ",")+1, m.Loader, m.ClientCPUs, max(m.Repeat, 1), m.OpenFiles)
	for _, g := range groups(r.Cells) {
		fmt.Fprintf(&b, "\n## %s\n\n", g)
		delayed := false
		for _, c := range r.Cells {
			if c.Group == g && c.IdealRPS > 0 {
				delayed = true
			}
		}
		cols := []string{"server", "conns", "req/s"}
		if delayed {
			cols = append(cols, "ideal req/s")
		}
		table.MarkdownHead(&b, append(cols, "p50 ms", "p99 ms", "p99.9 ms", "errors", "CPU us/req", "kernel us/req", "CPU %", "peak RSS MB",
			"RSS/conn KB", "goroutines max", "GCs", "GC pause ms")...)
		for _, c := range r.Cells {
			if c.Group != g || c.Error != "" {
				continue
			}
			row := []string{c.Server, strconv.Itoa(c.Connections), rateCell(c)}
			if delayed {
				row = append(row, fmt.Sprintf("%.0f", c.IdealRPS))
			}
			gcms := "-"
			if c.GCPauseTotalUs >= 0 {
				gcms = fmt.Sprintf("%.2f", float64(c.GCPauseTotalUs)/1000)
			}
			table.MarkdownRow(&b, append(row, num(c.Latency.P50/1000, 2), num(c.Latency.P99/1000, 2), num(c.Latency.P999/1000, 2),
				strconv.FormatInt(c.Errors, 10), num(c.CPUUsPerReq, 2), kernelNum(c), num(c.CPUPercent, 0), mb(c.RSSPeakBytes), kb(c.RSSPerConnByte),
				inum(c.GoroutinesMax), inum(c.GCCount), gcms)...)
		}
	}
	var failed []Cell
	for _, c := range r.Cells {
		if c.Error != "" {
			failed = append(failed, c)
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n## Cells that did not run\n\n")
		table.MarkdownHead(&b, "server", "scenario", "error")
		for _, c := range failed {
			table.MarkdownRow(&b, c.Server, c.Scenario, c.Error)
		}
	}
	writeAttacksMarkdown(&b, r.Cells)
	writeProfilesMarkdown(&b, r.Cells)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAttacksMarkdown lists what each cell's attack did, if any had one.
func writeAttacksMarkdown(b *strings.Builder, cells []Cell) {
	first := true
	for _, c := range cells {
		if c.AttackStats == nil || c.Error != "" {
			continue
		}
		if first {
			b.WriteString("\n## Attacks beside the load\n\n" +
				"Hostile connections the server closes are replaced (at most 1000 a second: the attack shares the load generator's CPUs); \"cut\" counts those closes.\n\n")
			table.MarkdownHead(b, "server", "scenario", "attack", "opened", "cut", "failed to connect", "MB accepted")
			first = false
		}
		a := c.AttackStats
		table.MarkdownRow(b, c.Server, c.Scenario, c.Attack, strconv.FormatInt(a.Opened, 10), strconv.FormatInt(a.Cut, 10),
			strconv.FormatInt(a.Failed, 10), fmt.Sprintf("%.1f", float64(a.Bytes)/1e6))
	}
}

// writeProfilesMarkdown lists each profiled cell's top entries by cumulative time.
func writeProfilesMarkdown(b *strings.Builder, cells []Cell) {
	first := true
	for _, c := range cells {
		if len(c.ProfileTop) == 0 {
			continue
		}
		if first {
			b.WriteString("\n## CPU profiles: top by cumulative time\n")
			first = false
		}
		fmt.Fprintf(b, "\n### %s, %s\n\n`%s`\n\n```\n%s\n```\n", c.Server, c.Scenario, c.Profile, strings.Join(c.ProfileTop, "\n"))
	}
}
