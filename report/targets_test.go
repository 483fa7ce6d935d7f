package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// targetsShard is shard i of a 2-way gust load --targets run at 1000 req/s:
// two endpoints, and a rare third that only shard 1 picked.
func targetsShard(i int, start time.Time) *result.Result {
	type ep struct {
		name                         string
		value, perSecond, errs, s5xx int64
	}
	eps := []ep{
		{"GET /api/items", 300 + int64(20*i), 400, 0, 0},
		{"POST /api/orders", 1800, 100 + int64(10*i), 1, 3},
	}
	if i == 1 {
		eps = append(eps, ep{"GET /admin/report", 25000, 1, 0, 0})
	}
	latency, seconds := timeline(2, true, 150, noErrors, func(s int, h *hdrhistogram.Histogram) {
		for _, e := range eps {
			record(h, e.value, e.perSecond)
		}
	})
	var endpoints []result.Endpoint
	var errs, s5xx int64
	for _, e := range eps {
		h := result.NewEndpointHistogram()
		record(h, e.value, 2*e.perSecond)
		endpoints = append(endpoints, result.Endpoint{Name: e.name, Requests: 2 * e.perSecond, Errors: e.errs, Status5xx: e.s5xx, Latency: h})
		errs += e.errs
		s5xx += e.s5xx
	}
	lateness := result.NewHistogram()
	record(lateness, 40, latency.TotalCount())
	connect := result.NewHistogram()
	record(connect, 120, 10)
	n := latency.TotalCount()
	return &result.Result{
		URL:          "http://gust-server.default.svc:8080/",
		Connections:  10,
		Loops:        1,
		Pipeline:     1,
		Rate:         500,
		KeepAlive:    true,
		Shard:        result.Shard{Index: i, Count: 2},
		Start:        start,
		Duration:     2 * time.Second,
		Requests:     n,
		BytesRead:    n * 150,
		BytesWritten: n * 90,
		Connects:     10,
		Latency:      latency,
		Connect:      connect,
		Lateness:     lateness,
		Status:       map[int]int64{200: n - s5xx, 503: s5xx},
		Errors:       map[result.ErrorKind]int64{result.ErrReadTimeout: errs},
		Timeline:     seconds,
		Endpoints:    endpoints,
	}
}

// targetsMergedRun merges the two shards of a --targets run.
func targetsMergedRun() *result.Result {
	r, err := result.Merge([]result.Part{
		{Name: "agent-0.json", Result: targetsShard(0, fixtureStart)},
		{Name: "agent-1.json", Result: targetsShard(1, fixtureStart.Add(3*time.Millisecond))},
	}, result.DefaultMaxSkew)
	if err != nil {
		panic(err)
	}
	return r
}

// TestReadResultsMergesTargetsShards writes the shards of a --targets run
// as JSON, reads them back and merges them: each endpoint must come back
// with its histogram, and the merge must equal the in-memory one, down to
// the report.
func TestReadResultsMergesTargetsShards(t *testing.T) {
	shards := []*result.Result{targetsShard(0, fixtureStart), targetsShard(1, fixtureStart.Add(3*time.Millisecond))}
	var stream []byte
	var inMemory []result.Part
	for i, s := range shards {
		stream = append(stream, jsonOf(t, s)...)
		inMemory = append(inMemory, result.Part{Name: fmt.Sprintf("stdin#%d", i+1), Result: s})
	}
	parts, err := ReadResults(stream, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		want := shards[i].Endpoints
		got := p.Result.Endpoints
		if len(got) != len(want) {
			t.Fatalf("%s: read %d endpoints, want %d", p.Name, len(got), len(want))
		}
		for _, w := range want {
			j := slices.IndexFunc(got, func(e result.Endpoint) bool { return e.Name == w.Name })
			if j < 0 {
				t.Errorf("%s: endpoint %q not read back", p.Name, w.Name)
				continue
			}
			g := got[j]
			if g.Requests != w.Requests || g.Errors != w.Errors || g.Status5xx != w.Status5xx || !g.Latency.Equals(w.Latency) {
				t.Errorf("%s: endpoint %q read back as %d/%d/%d, want %d/%d/%d with the same histogram",
					p.Name, w.Name, g.Requests, g.Errors, g.Status5xx, w.Requests, w.Errors, w.Status5xx)
			}
		}
	}
	got, err := result.Merge(parts, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want, err := result.Merge(inMemory, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Endpoints) != 3 {
		t.Fatalf("merged %d endpoints, want 3 (the rare one included)", len(got.Endpoints))
	}
	for _, format := range []string{"text", "json", "html"} {
		var a, b bytes.Buffer
		if err := Write(&a, format, got); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, format, want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s report merged from JSON differs from the in-memory merge:\n%s\n---\n%s", format, a.Bytes(), b.Bytes())
		}
	}
}

// TestReadResultsRefusesBadEndpoints checks the endpoint rows' own errors.
func TestReadResultsRefusesBadEndpoints(t *testing.T) {
	good := string(jsonOf(t, targetsShard(0, fixtureStart)))
	tests := []struct {
		name, old, new, want string
	}{
		{"no histogram (an older gust)", `"max_us": 301,
      "latency_hdr": "HISTF`, `"max_us": 301,
      "old_hdr": "HISTF`, `endpoint "GET /api/items" has no latency_hdr (written by an older gust)`},
		{"a count that disagrees", `"count": 800`, `"count": 801`, `endpoint "GET /api/items": latency_hdr holds 800 values but count is 801`},
		{"a corrupt histogram", `"max_us": 301,
      "latency_hdr": "HISTF`, `"max_us": 301,
      "latency_hdr": "HISTFxx`, `endpoint "GET /api/items" latency_hdr is not an encoded histogram`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input, ok := cutReplace(good, tt.old, tt.new)
			if !ok {
				t.Fatalf("fixture JSON lacks %q:\n%s", tt.old, good)
			}
			_, err := ReadResults([]byte(input), "in.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

// cutReplace replaces the first old in s with new, reporting whether s
// had it.
func cutReplace(s, old, new string) (string, bool) {
	before, after, ok := strings.Cut(s, old)
	return before + new + after, ok
}
