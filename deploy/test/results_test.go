package deploytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// agentRun is what one agent printed, as Kubernetes would keep it: its
// standard output (its -o json result) apart from its standard error.
type agentRun struct {
	index          int
	stdout, stderr []byte
	err            error
	took           time.Duration
}

// runAgents runs one command per agent, all at once, each bounded by limit,
// and returns what each printed, in index order. cmdOf makes agent i's.
func runAgents(n int, limit time.Duration, cmdOf func(ctx context.Context, i int) *exec.Cmd) []agentRun {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	runs := make([]agentRun, n)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			var stdout, stderr bytes.Buffer
			cmd := cmdOf(ctx, i)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			began := time.Now()
			err := cmd.Run()
			runs[i] = agentRun{index: i, stdout: stdout.Bytes(), stderr: stderr.Bytes(), err: err, took: time.Since(began)}
		})
	}
	wg.Wait()
	return runs
}

// maxSkew is gust merge's --max-skew here: a run of seconds on two cores
// shared with the containers' start leaves agents some tens of
// milliseconds apart (the default, 100ms, flags some); without --start-at
// they begin seconds apart, and a cut link leaves an agent seconds behind.
const maxSkew = 500 * time.Millisecond

// merged is gust merge's result of a run, read back, and its agent rows.
type merged struct {
	result *result.Result
	agents map[int]report.AgentStats // by shard index
	text   string                    // the text report, for the log
}

// mergeExactly pipes the agents' standard output, concatenated as
// `kubectl logs` of the pods would be, into `gust merge -o json -` (and
// the text report for the log), and checks that the merged result is
// exactly the sum of the agents' results: requests, bytes, connections,
// status codes, errors, the timeline's requests, and every bucket of the
// latency, connect and lateness histograms.
func mergeExactly(t *testing.T, gust string, runs []agentRun) merged {
	t.Helper()
	var all []byte
	var parts []result.Part
	for _, r := range runs {
		if len(r.stdout) == 0 {
			continue
		}
		all = append(all, r.stdout...)
		ps, err := report.ReadResults(r.stdout, fmt.Sprintf("agent %d", r.index))
		if err != nil {
			t.Fatalf("agent %d's output: %v", r.index, err)
		}
		parts = append(parts, ps...)
	}
	if len(parts) == 0 {
		t.Fatal("no agent printed a result")
	}
	out := func(format string) []byte {
		cmd := exec.Command(gust, "merge", "--max-skew", maxSkew.String(), "-o", format, "-")
		cmd.Stdin = bytes.NewReader(all)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("gust merge -o %s -: %v: %s", format, err, stderr.Bytes())
		}
		return b
	}
	js := out("json")
	m := merged{text: string(out("text")), agents: map[int]report.AgentStats{}}
	ms, err := report.ReadResults(js, "gust merge")
	if err != nil || len(ms) != 1 {
		t.Fatalf("gust merge -o json printed %d results (%v), want 1", len(ms), err)
	}
	m.result = ms[0].Result
	var s report.Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatal(err)
	}
	for _, a := range s.Agents {
		sh, err := result.ParseShard(a.Shard)
		if err != nil {
			t.Fatalf("agent row %+v: %v", a, err)
		}
		m.agents[sh.Index] = a
	}
	checkSum(t, m.result, parts)
	return m
}

// checkSum checks that got is exactly the sum of parts.
func checkSum(t *testing.T, got *result.Result, parts []result.Part) {
	t.Helper()
	var want result.Result
	want.Status, want.Errors = map[int]int64{}, map[result.ErrorKind]int64{}
	like := parts[0].Result.Latency
	want.Latency, want.Connect, want.Lateness = newLike(like), newLike(like), newLike(like)
	var timeline int64
	for _, p := range parts {
		r := p.Result
		want.Requests += r.Requests
		want.BytesRead += r.BytesRead
		want.BytesWritten += r.BytesWritten
		want.Connects += r.Connects
		want.Reconnects += r.Reconnects
		want.Connections += r.Connections
		want.Rate += r.Rate
		for code, n := range r.Status {
			want.Status[code] += n
		}
		for kind, n := range r.Errors {
			want.Errors[kind] += n
		}
		for _, h := range [][2]*hdrhistogram.Histogram{{want.Latency, r.Latency}, {want.Connect, r.Connect}, {want.Lateness, r.Lateness}} {
			if dropped := h[0].Merge(h[1]); dropped != 0 {
				t.Fatalf("%s: %d values out of the histogram's range", p.Name, dropped)
			}
		}
		for _, s := range r.Timeline {
			timeline += s.Requests
		}
	}
	counts := func(r *result.Result) []int64 {
		return []int64{r.Requests, r.BytesRead, r.BytesWritten, r.Connects, r.Reconnects, int64(r.Connections)}
	}
	if g, w := counts(got), counts(&want); !slices.Equal(g, w) {
		t.Errorf("merged requests, bytes read, bytes written, connects, reconnects, connections = %v; the agents' sum is %v", g, w)
	}
	if got.Rate != want.Rate {
		t.Errorf("merged rate %g, the agents' sum is %g", got.Rate, want.Rate)
	}
	if !maps.Equal(got.Status, want.Status) {
		t.Errorf("merged status codes %v, the agents' sum is %v", got.Status, want.Status)
	}
	if !maps.Equal(got.Errors, want.Errors) {
		t.Errorf("merged errors %v, the agents' sum is %v", got.Errors, want.Errors)
	}
	var gotTimeline int64
	for _, s := range got.Timeline {
		gotTimeline += s.Requests
	}
	if gotTimeline != timeline || timeline != want.Requests {
		t.Errorf("merged timeline holds %d requests, the agents' %d, their totals %d", gotTimeline, timeline, want.Requests)
	}
	for _, h := range []struct {
		name      string
		got, want *hdrhistogram.Histogram
	}{{"latency", got.Latency, want.Latency}, {"connect", got.Connect, want.Connect}, {"lateness", got.Lateness, want.Lateness}} {
		if !h.got.Equals(h.want) {
			t.Errorf("merged %s histogram (%d values, p99 %d) differs from the sum of the agents' (%d values, p99 %d)",
				h.name, h.got.TotalCount(), h.got.ValueAtQuantile(99), h.want.TotalCount(), h.want.ValueAtQuantile(99))
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("merged = sum of %d agents exactly: %d responses, statuses %v, errors %v, %d latency/%d connect/%d lateness histogram values",
		len(parts), got.Requests, got.Status, got.Errors, got.Latency.TotalCount(), got.Connect.TotalCount(), got.Lateness.TotalCount())
}

// newLike is an empty histogram with h's settings.
func newLike(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	return hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
}

// logRuns logs each agent's exit, time and standard error.
func logRuns(t *testing.T, runs []agentRun) {
	t.Helper()
	for _, r := range runs {
		t.Logf("agent %d: exit %v after %s, %d bytes of result; stderr: %q", r.index, r.err, r.took.Round(time.Millisecond),
			len(r.stdout), strings.TrimSpace(string(r.stderr)))
	}
}
