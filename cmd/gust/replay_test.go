package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// accessLog writes a combined log of n requests, one per 10 ms, with a bad
// line after every 50th, and returns its path.
func accessLog(t *testing.T, n int, gz bool) string {
	t.Helper()
	var b strings.Builder
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * 10 * time.Millisecond)
		method, path := "GET", fmt.Sprintf("/users/%d?v=%d", i%7, i)
		if i%5 == 0 {
			method, path = "POST", "/orders"
		}
		fmt.Fprintf(&b, `127.0.0.1 - - [%s] "%s %s HTTP/1.1" 200 10 "-" "agent"`+"\n", at.Format("02/Jan/2006:15:04:05 -0700"), method, path)
		if i%50 == 49 {
			b.WriteString("this is not a log line\n")
		}
	}
	data := []byte(b.String())
	name := "access.log"
	if gz {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(data)
		w.Close()
		data, name = z.Bytes(), "access.log.gz"
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// countingServer counts requests per method and path on loopback.
func countingServer(t *testing.T) (*httptest.Server, func() map[string]int) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen[r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Run")+" "+r.Host]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

func TestReplayRejectsBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	srv, _ := countingServer(t)
	good := accessLog(t, 3, false)
	empty := filepath.Join(t.TempDir(), "empty.log")
	os.WriteFile(empty, nil, 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no log", []string{"replay", "--target", srv.URL}, "need exactly one log file"},
		{"two logs", []string{"replay", "--target", srv.URL, good, good}, "need exactly one log file"},
		{"no target", []string{"replay", good}, "--target is required"},
		{"a target without scheme", []string{"replay", "--target", "127.0.0.1:8080", good}, "missing scheme"},
		{"an ftp target", []string{"replay", "--target", "ftp://127.0.0.1", good}, "not supported"},
		{"a target with a path", []string{"replay", "--target", srv.URL + "/api", good}, "give only http://host:port"},
		{"a refused target", []string{"replay", "--target", refused, good}, "connection refused"},
		{"a missing log", []string{"replay", "--target", srv.URL, "/nonexistent/access.log"}, "no such file"},
		{"an empty log", []string{"replay", "--target", srv.URL, empty}, "is empty"},
		{"an unknown flag", []string{"replay", "--bogus", good}, "unknown flag: --bogus"},
		{"two pacings", []string{"replay", "--target", srv.URL, "--max", "--rate", "5", good}, "one of --speed, --rate and --max"},
		{"a zero speed", []string{"replay", "--target", srv.URL, "--speed", "0", good}, "--speed must be positive"},
		{"an endless loop without a stop", []string{"replay", "--target", srv.URL, "--loop", "0", good}, "give -n or -z"},
		{"a loop over standard input", []string{"replay", "--target", srv.URL, "--loop", "2", "-"}, "standard input can be read once"},
		{"a bad regexp", []string{"replay", "--target", srv.URL, "--include", "(", good}, "bad --include"},
		{"a bad format", []string{"replay", "--target", srv.URL, "--format", "xml", good}, "unknown log format"},
		{"a bad header", []string{"replay", "--target", srv.URL, "-H", "NoColon", good}, "bad header"},
		{"a bad method", []string{"replay", "--target", srv.URL, "--methods", "G T", good}, "bad method"},
		{"an unknown output", []string{"replay", "--target", srv.URL, "-o", "xml", good}, "-o must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, tt.args...)
			wantOneLineError(t, err, tt.want)
		})
	}
}

func TestReplayReportsPerEndpoint(t *testing.T) {
	srv, seen := countingServer(t)
	log := accessLog(t, 200, true)
	stdout, _, err := gust(t, "replay", "--target", srv.URL, "--max", "-c", "4", "-H", "X-Run: 1", log)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	counts := seen()
	if counts["POST /orders 1 "+host] != 40 || counts["GET /users/3 1 "+host] != 23 {
		t.Errorf("server saw %v, want 40 POST /orders and 23 GET /users/3", counts)
	}
	for _, want := range []string{
		"Log         " + log + " (combined): 204 lines, 4 skipped, 200 requests read",
		"closed model (as fast as possible)",
		"Requests    200 responses",
		"Endpoints   count      errors     5xx        p50      p99      endpoint",
		"GET /users/:id\n",
		"POST /orders\n",
		`Skipped     line 51: no [time] field: "this is not a log line"`,
		"            line 102: no [time] field",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Index(stdout, "GET /users/:id\n") > strings.Index(stdout, "POST /orders\n") {
		t.Error("endpoints are not sorted by count")
	}
}

func TestReplayJSONAndFlags(t *testing.T) {
	srv, seen := countingServer(t)
	log := accessLog(t, 100, false)
	stdout, _, err := gust(t, "replay", "--target", srv.URL, "--rate", "2000", "--methods", "get", "--exclude", `v=1\d$`,
		"--host", "replay.test", "--loop", "2", "-o", "json", log)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Requests  int64   `json:"requests"`
		Rate      float64 `json:"rate"`
		Late      *struct{ Count int64 }
		Endpoints []struct {
			Endpoint string
			Count    int64
		}
		Input struct {
			Lines, Requests, Filtered, Skipped int64
			Passes                             int
			SkippedLines                       []struct{ Line int64 } `json:"skipped_lines"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	// 80 GETs (every 5th request is a POST), of which the 8 with v=11..19
	// are left out: 72 a pass, twice.
	if doc.Requests != 144 || doc.Rate != 2000 || doc.Late == nil {
		t.Errorf("requests %d rate %g late %v, want 144 at 2000/s with lateness", doc.Requests, doc.Rate, doc.Late)
	}
	if len(doc.Endpoints) != 1 || doc.Endpoints[0].Endpoint != "GET /users/:id" || doc.Endpoints[0].Count != 144 {
		t.Errorf("endpoints %+v, want GET /users/:id 144 times", doc.Endpoints)
	}
	in := doc.Input
	if in.Lines != 102 || in.Requests != 144 || in.Filtered != 28 || in.Skipped != 2 || in.Passes != 2 || len(in.SkippedLines) != 2 {
		t.Errorf("input %+v", in)
	}
	for key, n := range seen() {
		if !strings.HasSuffix(key, " replay.test") || !strings.HasPrefix(key, "GET ") {
			t.Errorf("server saw %d of %q: want only GETs with Host replay.test", n, key)
		}
	}
}

func TestReplayFromStandardInputAtSpeed(t *testing.T) {
	srv, _ := countingServer(t)
	logFile := accessLog(t, 100, false) // 1 s of traffic
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := newRootCmd()
	var stdout bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(io.Discard)
	cmd.SetIn(bytes.NewReader(data))
	cmd.SetArgs([]string{"replay", "--target", srv.URL, "--speed", "4", "-o", "csv", "-"})
	start := time.Now()
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	// The log's 100 lines share one second, so they are spread over it: 250 ms at 4x.
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("took %s, want about 250ms", d)
	}
	if !strings.HasPrefix(stdout.String(), "second,requests,errors,bytes_read,p50_us,p99_us\n0,100,") {
		t.Errorf("csv = %q, want 100 requests in second 0", stdout.String())
	}
}
