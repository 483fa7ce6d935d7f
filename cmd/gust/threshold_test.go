package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// exitStatusOf is the status main exits with for err.
func exitStatusOf(err error) int {
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	return exitCode(err)
}

// TestLoadThresholdsSetTheExitStatus passes and fails each kind of
// threshold on short loopback runs: exit status 0 when all hold, 99 when
// one fails, with the report listing each.
func TestLoadThresholdsSetTheExitStatus(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable) // every other response
		}
	}))
	defer srv.Close()
	closed := []string{"load", "-n", "200", "-c", "4", "--quiet", srv.URL}
	open := []string{"load", "--rate", "400", "-z", "500ms", "-c", "4", "--quiet", srv.URL}
	tests := []struct {
		name   string
		run    []string
		exprs  []string
		extra  []string
		status int
	}{
		{"latency within its limits", closed, []string{"p99<10s", "p99.9<=10s", "mean<10s", "max<60s", "min>=1us", "p50<10s"}, nil, 0},
		{"a percentile over its limit", closed, []string{"p99<10s", "p50<1us"}, nil, 99},
		{"a mean over its limit", closed, []string{"mean<1us"}, nil, 99},
		{"a max over its limit", closed, []string{"max<1us"}, nil, 99},
		{"503s are no errors without --fail-status", closed, []string{"error_rate<0.1%"}, nil, 0},
		{"503s are errors with --fail-status 5xx", closed, []string{"error_rate<10%"}, []string{"--fail-status", "5xx"}, 99},
		{"503s under a loose error_rate", closed, []string{"error_rate<=60%"}, []string{"--fail-status", "503"}, 0},
		{"rps reached", closed, []string{"rps>=1"}, nil, 0},
		{"rps not reached", closed, []string{"rps>=1e12"}, nil, 99},
		{"late_rate within its limit", open, []string{"late_rate<=100%"}, nil, 0},
		{"late_rate over its limit", open, []string{"late_rate<0%"}, nil, 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{}, tt.run[:len(tt.run)-1]...)
			for _, e := range tt.exprs {
				args = append(args, "--threshold", e)
			}
			args = append(append(args, tt.extra...), tt.run[len(tt.run)-1])
			out, stderr, err := gust(t, args...)
			if got := exitStatusOf(err); got != tt.status {
				t.Fatalf("exit status %d (%v), want %d; report:\n%s", got, err, tt.status, out)
			}
			for _, e := range tt.exprs {
				if !strings.Contains(out, e) {
					t.Errorf("report does not list %s:\n%s", e, out)
				}
			}
			if failed := strings.Contains(out, "FAILED"); failed != (tt.status == 99) {
				t.Errorf("report says FAILED: %v, want %v:\n%s", failed, tt.status == 99, out)
			}
			if tt.status == 99 && !strings.Contains(stderr, "thresholds failed (exit status 99)") {
				t.Errorf("stderr %q does not say why the exit status is 99", stderr)
			}
		})
	}
}

// TestLoadThresholdsInJSONAndExitCode checks the -o json thresholds array
// and that the process itself exits with 99.
func TestLoadThresholdsInJSONAndExitCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	out, stderr, code := gustProcess(t, 30*time.Second, "load", "-n", "100", "-c", "2", "--quiet", "-o", "json",
		"--threshold", "p99<10s", "--threshold", "rps>=1e12", srv.URL)
	if code != 99 {
		t.Fatalf("exit status %d, want 99; stderr: %s", code, stderr)
	}
	s := summaryOf(t, out)
	if len(s.Thresholds) != 2 {
		t.Fatalf("thresholds %+v, want two", s.Thresholds)
	}
	first, second := s.Thresholds[0], s.Thresholds[1]
	if first.Expr != "p99<10s" || !first.OK || first.Unit != "us" || first.Value == nil || *first.Value <= 0 || float64(s.Latency.P99) != *first.Value {
		t.Errorf("first threshold %+v, want p99<10s ok with the report's p99 %d us", first, s.Latency.P99)
	}
	if second.Expr != "rps>=1e12" || second.OK || second.Unit != "req/s" || second.Value == nil || *second.Value != s.RPS {
		t.Errorf("second threshold %+v, want rps>=1e12 failed at %g", second, s.RPS)
	}
	_, _, code = gustProcess(t, 30*time.Second, "load", "-n", "100", "-c", "2", "--quiet", "--threshold", "p99<10s", srv.URL)
	if code != 0 {
		t.Errorf("exit status %d with every threshold held, want 0", code)
	}
}

// TestThresholdsRefuseBadExpressions: one line, exit status 2, before any
// load (the target's port is closed, and that is not the error).
func TestThresholdsRefuseBadExpressions(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"load", "--threshold", "p99<250", refused}, "with a unit"},
		{[]string{"load", "--threshold", "p99", refused}, "has no comparison"},
		{[]string{"load", "--threshold", "latency<1s", refused}, "unknown metric"},
		{[]string{"load", "--threshold", "error_rate<200%", refused}, "more than 100%"},
		{[]string{"load", "--threshold", "late_rate<1%", refused}, "needs the open model"},
		{[]string{"load", "--fail-status", "6xx", refused}, "--fail-status"},
		{[]string{"merge", "--threshold", "p99=1ms", "x.json"}, "operator must be"},
		{[]string{"merge", "--fail-status", "abc", "x.json"}, "--fail-status"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := gust(t, tt.args...)
			wantOneLineError(t, err, tt.want)
			if got := exitStatusOf(err); got != 2 {
				t.Errorf("exit status %d, want 2", got)
			}
		})
	}
}

// agentJSON writes a result of shard i/2 whose one second holds values,
// as gust load -o json would, and returns its file.
func agentJSON(t *testing.T, dir string, i int, start time.Time, values map[int64]int64) string {
	t.Helper()
	h := result.NewHistogram()
	for v, n := range values {
		h.RecordValues(v, n)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{URL: "http://127.0.0.1:8080/", Method: "GET", Connections: 2, Loops: 1, Pipeline: 1, KeepAlive: true,
		Shard: result.Shard{Index: i, Count: 2}, Start: start, Duration: time.Second, Requests: h.TotalCount(),
		Latency: h, Connect: result.NewHistogram(), Lateness: result.NewHistogram(),
		Status: map[int]int64{200: h.TotalCount()}, Errors: map[result.ErrorKind]int64{},
		Timeline: []result.Second{{Second: 0, Requests: h.TotalCount(), Hist: enc, P50us: h.ValueAtQuantile(50), P99us: h.ValueAtQuantile(99)}}}
	path := filepath.Join(dir, "agent-"+string(rune('0'+i))+".json")
	if err := writeFile(path, func(w io.Writer) error { return report.JSON(w, r) }); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMergeThresholdsJudgeTheMergedHistogram: two agents whose p99s
// average under the limit, 1 ms and 100 ms (50.5 ms < 60 ms), while the
// merged histogram's p99 is 100 ms; and the reverse with a limit of 2 ms.
func TestMergeThresholdsJudgeTheMergedHistogram(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	a := agentJSON(t, dir, 0, start, map[int64]int64{1000: 1000})
	tests := []struct {
		name   string
		tail   int64 // b's responses at 100 ms, of 1000
		expr   string
		status int
	}{
		{"average passes, merged fails", 30, "p99<60ms", 99},
		{"average fails, merged passes", 15, "p99<2ms", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := agentJSON(t, dir, 1, start, map[int64]int64{1000: 1000 - tt.tail, 100_000: tt.tail})
			out, err := gustWithInput(t, "", "merge", "--threshold", tt.expr, a, b)
			if got := exitStatusOf(err); got != tt.status {
				t.Fatalf("exit status %d (%v), want %d; report:\n%s", got, err, tt.status, out)
			}
			if !strings.Contains(out, "Thresholds  "+tt.expr) {
				t.Errorf("report does not list %s:\n%s", tt.expr, out)
			}
		})
	}
}
