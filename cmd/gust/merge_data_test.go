package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/report"
)

// pathCounter counts the requests a loopback server gets, by method and
// path: what the endpoints of a --targets run must add up to.
type pathCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *pathCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.n[r.Method+" "+r.URL.Path]++
	c.mu.Unlock()
	if r.URL.Path == "/fail" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	w.Write([]byte("Hello, Go!"))
}

// endpointsOf returns s's endpoint rows by name.
func endpointsOf(s report.Summary) map[string]report.EndpointStats {
	m := map[string]report.EndpointStats{}
	for _, e := range s.Endpoints {
		m[e.Endpoint] = e
	}
	return m
}

// TestMergeTargetsShards runs two shards of a gust load --targets run
// against a loopback server and merges their -o json results: each merged
// endpoint is the sum of the shards' (and what the server saw), its
// histogram holds exactly that many values, the text and HTML reports show
// the endpoint table as gust load's own does, and --threshold judges the
// merged result.
func TestMergeTargetsShards(t *testing.T) {
	server := &pathCounter{n: map[string]int64{}}
	srv := httptest.NewServer(server)
	defer srv.Close()
	f := dataFiles(t, map[string]string{
		"targets.txt": "GET /items weight=6\nPOST /orders {\"n\":1}\nContent-Type: application/json\nGET /fail\n",
		"users.csv":   usersCSV,
	})
	dir := t.TempDir()
	var files []string
	var shards []report.Summary
	for i := range 2 {
		out, _, err := gust(t, "load", "--shard", fmt.Sprintf("%d/2", i), "-n", "400", "-c", "2", "--loops", "1",
			"--targets", f["targets.txt"], "-o", "json", srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, summaryOf(t, out))
		files = append(files, filepath.Join(dir, fmt.Sprintf("agent-%d.json", i)))
		if err := os.WriteFile(files[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The agents ran one after the other: a wide --max-skew keeps the
	// second from being flagged late, which does not matter here.
	out, err := gustWithInput(t, "", "merge", "--max-skew", "1h", "-o", "json", files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	m := summaryOf(t, out)
	if m.Requests != 400 || len(m.Endpoints) != 3 {
		t.Fatalf("merged %d requests in %d endpoints, want 400 in 3:\n%s", m.Requests, len(m.Endpoints), out)
	}
	var total int64
	for name, e := range endpointsOf(m) {
		var sum, errs, s5xx int64
		for _, s := range shards {
			sum += endpointsOf(s)[name].Count
			errs += endpointsOf(s)[name].Errors
			s5xx += endpointsOf(s)[name].Status5xx
		}
		h, err := hdrhistogram.Decode([]byte(e.LatencyHdr))
		if err != nil {
			t.Fatalf("%s: merged latency_hdr: %v", name, err)
		}
		if e.Count != sum || e.Errors != errs || e.Status5xx != s5xx || h.TotalCount() != sum {
			t.Errorf("%s: merged %d responses (%d errors, %d 5xx) in a histogram of %d; the shards' sum is %d (%d, %d)",
				name, e.Count, e.Errors, e.Status5xx, h.TotalCount(), sum, errs, s5xx)
		}
		if saw := server.n[name]; saw != e.Count {
			t.Errorf("%s: merged %d responses, the server saw %d", name, e.Count, saw)
		}
		total += e.Count
	}
	if total != m.Requests {
		t.Errorf("endpoints add up to %d responses, the merged run has %d", total, m.Requests)
	}
	if e := endpointsOf(m)["GET /fail"]; e.Status5xx != e.Count || e.Count == 0 {
		t.Errorf("GET /fail merged with %d 5xx of %d, want all", e.Status5xx, e.Count)
	}

	text, err := gustWithInput(t, "", "merge", "--max-skew", "1h", files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Endpoints   count      errors     5xx", "GET /items", "POST /orders", "GET /fail", "across 2 agents"} {
		if !strings.Contains(text, want) {
			t.Errorf("merged text report lacks %q:\n%s", want, text)
		}
	}
	html, err := gustWithInput(t, "", "merge", "--max-skew", "1h", "-o", "html", files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "<h2>Endpoints</h2>") || !strings.Contains(html, "POST /orders</td>") {
		t.Errorf("merged HTML report lacks its endpoint table")
	}

	for _, tt := range []struct {
		expr   string
		status int
	}{{"p99<60s", 0}, {"p99<1us", 99}} {
		out, err := gustWithInput(t, "", "merge", "--max-skew", "1h", "--threshold", tt.expr, files[0], files[1])
		if got := exitStatusOf(err); got != tt.status {
			t.Errorf("--threshold %s: exit status %d (%v), want %d", tt.expr, got, err, tt.status)
		}
		if !strings.Contains(out, "Thresholds  "+tt.expr) || !strings.Contains(out, "GET /items") {
			t.Errorf("--threshold %s: report lacks the threshold or the endpoints:\n%s", tt.expr, out)
		}
	}
}

// TestMergeRefusesTargetsMismatches: a --targets shard beside a shard of
// one request (--data-csv alone has no endpoints), or beside a plain run,
// and a replay's result, are refused in one line naming both parts.
func TestMergeRefusesTargetsMismatches(t *testing.T) {
	server := &pathCounter{n: map[string]int64{}}
	srv := httptest.NewServer(server)
	defer srv.Close()
	f := dataFiles(t, map[string]string{
		"targets.txt": "GET /u/{{id}}\nPOST /orders {\"n\":1}\n",
		"users.csv":   usersCSV,
		"access.log":  `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /x HTTP/1.1" 200 2326 "-" "-"` + "\n",
	})
	dir := t.TempDir()
	write := func(name string, args ...string) string {
		t.Helper()
		out, _, err := gust(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	targets := write("targets.json", "load", "--shard", "0/2", "-c", "2", "--targets", f["targets.txt"], "--data-csv", f["users.csv"], "-o", "json", srv.URL)
	csv := write("csv.json", "load", "--shard", "1/2", "-c", "2", "--data-csv", f["users.csv"], "-o", "json", srv.URL+"/u/{{id}}")
	plain := write("plain.json", "load", "--shard", "1/2", "-n", "10", "-c", "2", "-o", "json", srv.URL+"/")
	replay := write("replay.json", "replay", "--target", srv.URL, "--max", "-c", "1", "-o", "json", f["access.log"])
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"targets, then --data-csv alone", []string{targets, csv},
			targets + " has per-endpoint counts (gust load --targets) but " + csv + " has none: only shares of one run can be merged"},
		{"--data-csv alone, then targets", []string{csv, targets},
			targets + " has per-endpoint counts (gust load --targets) but " + csv + " has none"},
		{"targets and a plain run", []string{targets, plain},
			targets + " sends the requests of its --targets or --data-csv file but " + plain + " sends GET"},
		{"a replay", []string{targets, replay}, replay + " line 1: a gust replay result: only gust load results can be merged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gustWithInput(t, "", append([]string{"merge"}, tt.files...)...)
			wantOneLineError(t, err, tt.want)
		})
	}
}
