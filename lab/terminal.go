package lab

import (
	"fmt"
	"io"
)

// WriteTableHead writes the head of the table gust bench prints on the
// terminal as it goes, one WriteTableRow a cell.
func WriteTableHead(w io.Writer) {
	fmt.Fprintf(w, "%-14s %-18s %6s %10s %9s %9s %8s %8s %10s %7s\n",
		"server", "scenario", "conns", "req/s", "p50 ms", "p99 ms", "cpu/req", "rss MB", "goroutines", "errors")
}

// WriteTableRow writes one cell's line of the terminal table: its
// measurements, "-" for those unknown, or its error.
func WriteTableRow(w io.Writer, c Cell) {
	if c.Error != "" {
		fmt.Fprintf(w, "%-14s %-18s %6d  error: %s\n", c.Server, c.Scenario, c.Connections, c.Error)
		return
	}
	rps := rateCell(c)
	if c.IdealRPS > 0 {
		rps += fmt.Sprintf("/%.0f", c.IdealRPS)
	}
	fmt.Fprintf(w, "%-14s %-18s %6d %10s %9s %9s %8s %8s %10s %7d\n", c.Server, c.Scenario, c.Connections, rps,
		num(c.Latency.P50/1000, 2), num(c.Latency.P99/1000, 2), num(c.CPUUsPerReq, 2), mb(c.RSSPeakBytes), inum(c.GoroutinesMax), c.Errors)
}
