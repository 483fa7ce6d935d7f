package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/report"
)

// gustWithInput is gust with standard input.
func gustWithInput(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var stdout, stderr bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return stdout.String(), err
}

// summaryOf decodes gust's -o json output.
func summaryOf(t *testing.T, out string) report.Summary {
	t.Helper()
	var s report.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("output is not one JSON result: %v\n%s", err, out)
	}
	return s
}

func latencyOf(t *testing.T, s report.Summary) *hdrhistogram.Histogram {
	t.Helper()
	h, err := s.LatencyHistogram()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestFourAgentsMergeIntoOneRun is the distributed run in miniature: four
// agents, each with --shard i/4 and the same --start-at, load one loopback
// server, and gust merge adds their results. The merged report must match
// a single agent's run at the full rate in everything that is counted, and
// its percentiles must be exactly those of the agents' values taken
// together.
func TestFourAgentsMergeIntoOneRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("Hello, Go!"))
	}))
	defer srv.Close()
	// The open model with -n: every agent sends exactly its share.
	run := []string{"--rate", "400", "-n", "600", "-c", "8", "-o", "json", srv.URL + "/x"}

	single, _, err := gust(t, append([]string{"load"}, run...)...)
	if err != nil {
		t.Fatal(err)
	}
	one := summaryOf(t, single)

	dir := t.TempDir()
	startAt := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	files := make([]string, 4)
	outs := make([]string, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range files {
		files[i] = filepath.Join(dir, fmt.Sprintf("agent-%d.json", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"load", "--shard", fmt.Sprintf("%d/4", i), "--start-at", startAt}, run...)
			outs[i], _, errs[i] = gust(t, args...)
		}()
	}
	wg.Wait()
	agents := make([]report.Summary, 4)
	var all bytes.Buffer
	for i := range files {
		if errs[i] != nil {
			t.Fatalf("agent %d: %v", i, errs[i])
		}
		agents[i] = summaryOf(t, outs[i])
		if err := os.WriteFile(files[i], []byte(outs[i]), 0o644); err != nil {
			t.Fatal(err)
		}
		all.WriteString(outs[i])
	}

	merged, err := gustWithInput(t, "", append([]string{"merge", "-o", "json"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	m := summaryOf(t, merged)
	fromStdin, err := gustWithInput(t, all.String(), "merge", "-o", "json", "-")
	if err != nil {
		t.Fatal(err)
	}
	if s := summaryOf(t, fromStdin); s.Requests != m.Requests || s.LatencyHdr != m.LatencyHdr {
		t.Error("merging from standard input differs from merging the files")
	}

	// Counted things add up exactly, and match the single run's.
	var timeline int64
	for _, s := range m.Timeline {
		timeline += s.Requests
	}
	if m.Requests != 600 || one.Requests != 600 || m.Status["200"] != 600 || timeline != 600 || m.ErrorTotal != 0 {
		t.Errorf("merged %d requests (status %v, timeline %d, errors %d), single %d: want 600 each, no errors",
			m.Requests, m.Status, timeline, m.ErrorTotal, one.Requests)
	}
	if m.Rate != one.Rate || m.Connections != one.Connections || m.URL != one.URL || m.Method != one.Method {
		t.Errorf("merged run is %s %s, %d connections at %g/s; single is %s %s, %d at %g/s",
			m.Method, m.URL, m.Connections, m.Rate, one.Method, one.URL, one.Connections, one.Rate)
	}
	if m.StartAt == "" {
		t.Error("merged result lost the agents' common start_at")
	}
	if len(m.Agents) != 4 {
		t.Fatalf("merged result has %d agent rows, want 4", len(m.Agents))
	}
	for i, a := range m.Agents {
		if a.Shard != fmt.Sprintf("%d/4", i) || a.Requests != 150 {
			t.Errorf("agent row %d = shard %s with %d requests, want %d/4 with 150", i, a.Shard, a.Requests, i)
		}
		t.Logf("agent %s: start +%.3fs, %.3fs, late %v, short %v", a.Shard, a.OffsetS, a.DurationS, a.Late, a.Short)
	}

	// The merged histogram is exactly the agents' values together, so every
	// merged percentile is theirs to within the histogram's precision (in
	// fact equal).
	together := latencyOf(t, agents[0])
	for _, a := range agents[1:] {
		together.Merge(latencyOf(t, a))
	}
	mergedHist := latencyOf(t, m)
	if !mergedHist.Equals(together) {
		t.Error("merged latency histogram differs from the agents' histograms added")
	}
	for _, p := range []struct {
		name   string
		merged int64
		q      float64
	}{{"p50", m.Latency.P50, 50}, {"p90", m.Latency.P90, 90}, {"p99", m.Latency.P99, 99}, {"p99.9", m.Latency.P999, 99.9}} {
		if want := together.ValueAtQuantile(p.q); !together.ValuesAreEquivalent(p.merged, want) {
			t.Errorf("merged %s = %dus, want %dus (the agents' values together)", p.name, p.merged, want)
		}
	}
	// Two separate runs' latencies differ by scheduling noise far beyond
	// the histogram's 0.1%, so the single run's are shown, not compared.
	t.Logf("latency p50/p99: merged %d/%d us, single run %d/%d us",
		m.Latency.P50, m.Latency.P99, one.Latency.P50, one.Latency.P99)

	for _, format := range []string{"text", "csv", "html"} {
		out, err := gustWithInput(t, "", append([]string{"merge", "-o", format}, files...)...)
		if err != nil || out == "" {
			t.Errorf("merge -o %s: %v", format, err)
		}
	}
	text, _ := gustWithInput(t, "", append([]string{"merge"}, files...)...)
	if !strings.Contains(text, "across 4 agents") || !strings.Contains(text, "agent-3.json") {
		t.Errorf("text report lacks its agents:\n%s", text)
	}
}

func TestMergeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	result := func(args ...string) string {
		out, _, err := gust(t, append(append([]string{"load", "-n", "20", "-c", "2", "-o", "json"}, args...), srv.URL+"/")...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := write("a.json", result("--shard", "0/2"))
	b := write("b.json", result("--shard", "1/2"))
	post := write("post.json", result("--shard", "1/2", "-m", "POST"))
	other := write("other.json", strings.Replace(result("--shard", "1/2"), srv.URL, "http://127.0.0.1:1", 1))
	coarse := write("coarse.json", withLatency(t, result("--shard", "1/2"), 2))
	garbage := write("garbage.json", "gust: load: cannot connect to 10.0.0.5:8080: connection refused\n")
	empty := write("empty.json", "")

	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no files", []string{"merge"}, "", "give the result files"},
		{"a missing file", []string{"merge", filepath.Join(dir, "nope.json")}, "", "no such file"},
		{"an empty file", []string{"merge", a, empty}, "", "empty.json: no results in it (empty input)"},
		{"garbage", []string{"merge", a, garbage}, "", `garbage.json line 1: not the JSON of gust load -o json: "gust: load: cannot connect`},
		{"garbage on standard input", []string{"merge", "-"}, "oops\n", `stdin line 1: not the JSON of gust load -o json: "oops"`},
		{"empty standard input", []string{"merge", "-"}, "", "stdin: no results in it"},
		{"another method", []string{"merge", a, post}, "", "a.json sends GET but " + post + " sends POST"},
		{"another URL", []string{"merge", a, other}, "", "but " + other + " targets http://127.0.0.1:1/"},
		{"another precision", []string{"merge", a, coarse}, "", coarse + "'s latency histogram has 2 significant digits from 1 to 3600000000 but " + a + "'s latency histogram has 3"},
		{"a file given twice", []string{"merge", a, a}, "", "are both shard 0/2"},
		{"standard input twice", []string{"merge", "-", "-"}, "", "- is given twice"},
		{"an unknown format", []string{"merge", "-o", "xml", a, b}, "", "-o must be text, json, csv or html"},
		{"a negative skew", []string{"merge", "--max-skew", "-1s", a, b}, "", "--max-skew must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gustWithInput(t, tt.stdin, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}

	// The two shards do merge, into a run of the whole.
	out, err := gustWithInput(t, "", "merge", "-o", "json", "--hdr-log", filepath.Join(dir, "merged.hlog"), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if s := summaryOf(t, out); s.Requests != 20 || s.Connections != 2 {
		t.Errorf("merged %d requests on %d connections, want 20 on 2", s.Requests, s.Connections)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "merged.hlog")); err != nil || !strings.Contains(string(log), "HIST") {
		t.Errorf("merged hdr log %q (%v), want interval histograms", log, err)
	}
}

// withLatency returns a gust load -o json result whose latency histogram
// holds the same number of values at another precision, as a gust built
// with other histogram settings would write.
func withLatency(t *testing.T, result string, digits int) string {
	t.Helper()
	s := summaryOf(t, result)
	h := hdrhistogram.New(1, 3_600_000_000, digits)
	if err := h.RecordValues(100, s.Requests); err != nil {
		t.Fatal(err)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(result, `"latency_hdr": "`+s.LatencyHdr, `"latency_hdr": "`+string(enc), 1)
}
