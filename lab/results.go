package lab

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// Results is a finished matrix with what is needed to read it later.
type Results struct {
	Meta  Meta   `json:"meta"`
	Cells []Cell `json:"cells"`
}

// Meta describes how a matrix was run.
type Meta struct {
	Date       string  `json:"date"`
	Command    string  `json:"command"`
	GoVersion  string  `json:"go_version"`
	Kernel     string  `json:"kernel,omitempty"`
	ServerCPUs string  `json:"server_cpus"`
	ClientCPUs string  `json:"client_cpus"`
	Loader     string  `json:"loader"`
	Repeat     int     `json:"repeat"`
	OpenFiles  uint64  `json:"open_files_limit"`
	TookS      float64 `json:"took_s"`
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Results) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadResults reads a results.json.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// csvHeader lists the columns of results.csv.
var csvHeader = []string{"server", "scenario", "group", "connections", "keepalive", "pipeline", "delay_ms", "loader",
	"rps", "ideal_rps", "requests", "p50_us", "p99_us", "p999_us", "errors", "cpu_us_per_req", "cpu_percent",
	"rss_peak_bytes", "rss_per_conn_bytes", "goroutines_max", "gc_count", "gc_pause_total_us", "error",
	"cpu_kernel_us_per_req"}

// WriteCSV writes one row per cell.
func WriteCSV(w io.Writer, r *Results) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, c := range r.Cells {
		cw.Write([]string{c.Server, c.Scenario, c.Group, strconv.Itoa(c.Connections), strconv.FormatBool(c.KeepAlive),
			strconv.Itoa(c.Pipeline), f(c.DelayMS), c.Loader, f(c.RPS), f(c.IdealRPS), i(c.Requests),
			f(c.Latency.P50), f(c.Latency.P99), f(c.Latency.P999), i(c.Errors), f(c.CPUUsPerReq), f(c.CPUPercent),
			i(c.RSSPeakBytes), i(c.RSSPerConnByte), i(c.GoroutinesMax), i(c.GCCount), i(c.GCPauseTotalUs), c.Error,
			f(c.CPUKernelUsPerReq)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteAll writes results.json, results.csv, report.md and report.html into dir.
func WriteAll(dir string, r *Results) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	writers := []struct {
		name  string
		write func(io.Writer, *Results) error
	}{
		{"results.json", WriteJSON}, {"results.csv", WriteCSV}, {"report.md", WriteMarkdown}, {"report.html", WriteHTML},
	}
	var paths []string
	for _, w := range writers {
		p := filepath.Join(dir, w.name)
		f, err := os.Create(p)
		if err != nil {
			return paths, err
		}
		err = w.write(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return paths, fmt.Errorf("write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
