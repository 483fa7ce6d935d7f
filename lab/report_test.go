package lab

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fakeResults is a fixed matrix: two servers, a keep-alive group at two
// connection counts, a delayed group, a target without samples and a
// failed cell, and a cell beside an attack.
func fakeResults() *Results {
	cell := func(srv, sc, group string, conns int, rps float64) Cell {
		return Cell{Server: srv, Scenario: sc, Group: group, Connections: conns, KeepAlive: true, Pipeline: 1, Loader: "gust",
			RPS: rps, Requests: int64(rps * 5), DurationS: 5, Latency: Latencies{P50: 1500, P99: 9800, P999: 21000},
			CPUUsPerReq: 10.5, CPUKernelUsPerReq: 9.25, CPUPercent: 97, RSSPeakBytes: 24 << 20, RSSPerConnByte: 6144, GoroutinesMax: 210, GCCount: 12, GCPauseTotalUs: 3400}
	}
	slow := func(srv string, conns int, rps float64) Cell {
		c := cell(srv, "delay2s-"+string(rune('0'+conns/1000)), "keep-alive, handler waits 2s", conns, rps)
		c.DelayMS, c.IdealRPS = 2000, float64(conns)/2
		return c
	}
	attacked := cell("gust-native", "slowloris-5000", "keep-alive, beside 5000 slowloris connections", 200, 93000)
	attacked.Attack = "5000 slowloris"
	attacked.AttackStats = &AttackStats{Opened: 10000, Cut: 5000, Bytes: 123456}
	target := cell("nginx", "keepalive-200", "keep-alive", 200, 50000)
	target.CPUUsPerReq, target.CPUKernelUsPerReq, target.CPUPercent, target.RSSPeakBytes, target.RSSPerConnByte = -1, -1, -1, -1, -1
	target.GoroutinesMax, target.GCCount, target.GCPauseTotalUs = -1, -1, -1
	target.Latency.P999 = -1
	return &Results{
		Meta: Meta{Date: "2026-11-22T03:00:00Z", Command: "gust bench --quick", GoVersion: "go1.26.8", Kernel: "6.8.0",
			ServerCPUs: "0", ClientCPUs: "1", Loader: "gust", Repeat: 1, OpenFiles: 20000, TookS: 42},
		Cells: []Cell{
			cell("fasthttp", "keepalive-200", "keep-alive", 200, 101402),
			cell("gust-native", "keepalive-200", "keep-alive", 200, 95000.4),
			target,
			cell("fasthttp", "keepalive-2000", "keep-alive", 2000, 90000),
			{Server: "gust-native", Scenario: "keepalive-2000", Group: "keep-alive", Connections: 2000, Error: "server gust-native: exited before answering (exit status 2): bad flag | oops"},
			slow("fasthttp", 2000, 998.7),
			slow("gust-native", 2000, 999.1),
			attacked,
		},
	}
}

func TestReportGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(io.Writer, *Results) error
	}{
		{"report.md", WriteMarkdown},
		{"report.html", WriteHTML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b, fakeResults()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				os.WriteFile(golden, b.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from %s (go test ./lab -update to accept):\n%s", tc.name, golden, b.String())
			}
		})
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, fakeResults()); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, bad := range []string{"<script", "src=", "href=", "@import"} {
		if strings.Contains(s, bad) {
			t.Errorf("report.html holds %q: it must not fetch anything", bad)
		}
	}
	// keep-alive: 5 charts (the target has req/s and p99 only); delayed: 5,
	// with the ideal; beside an attack: 5.
	if n := strings.Count(s, "<svg"); n != 15 {
		t.Errorf("%d charts, want 15", n)
	}
	if !strings.Contains(s, "ideal (C/delay)") || !strings.Contains(s, "exited before answering") {
		t.Error("the ideal series or the failed cell is missing")
	}
}

func TestWriteAllWritesFourFiles(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(dir, fakeResults())
	if err != nil || len(paths) != 4 {
		t.Fatalf("paths %v, err %v", paths, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	var raw struct {
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"server", "scenario", "connections", "rps", "latency_us", "errors", "cpu_us_per_req", "rss_peak_bytes", "goroutines_max"} {
		if _, ok := raw.Cells[0][key]; !ok {
			t.Errorf("results.json cells lack %q", key)
		}
	}
	if lat := raw.Cells[0]["latency_us"].(map[string]any); lat["p99"] != 9800.0 {
		t.Errorf("latency_us %v", lat)
	}
	if _, ok := raw.Cells[5]["ideal_rps"]; !ok {
		t.Error("a delayed cell lacks ideal_rps")
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	if lines := strings.Count(string(csv), "\n"); lines != 9 {
		t.Errorf("results.csv has %d lines, want header + 8", lines)
	}
	if a, ok := raw.Cells[7]["attack_stats"].(map[string]any); !ok || a["cut"] != 5000.0 {
		t.Errorf("the attacked cell's attack_stats: %v", raw.Cells[7]["attack_stats"])
	}
	back, err := ReadResults(filepath.Join(dir, "results.json"))
	if err != nil || len(back.Cells) != 8 || back.Cells[1].RPS != 95000.4 || back.Cells[7].AttackStats == nil {
		t.Errorf("read back %v %v", back, err)
	}
}

func TestCompare(t *testing.T) {
	a, b := fakeResults(), fakeResults()
	b.Cells[0].RPS = a.Cells[0].RPS * 1.1
	var out bytes.Buffer
	if err := WriteCompare(&out, a, b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| fasthttp | keepalive-200 | 101402 | 111542 | +10.0% |") {
		t.Errorf("compare:\n%s", out.String())
	}
	if strings.Contains(out.String(), "keepalive-2000 | 0 |") {
		t.Error("a failed cell was compared")
	}
	b.Cells = nil
	if err := WriteCompare(&out, a, b); err == nil {
		t.Error("no common cells: no error")
	}
}
