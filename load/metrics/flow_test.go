package metrics

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// constructedFlow is a flow run's Live: two steps (one with a failure),
// three checks, two of them of the same name on one step.
func constructedFlow() *load.Live {
	live := constructedLive()
	login, items := result.NewEndpointHistogram(), result.NewEndpointHistogram()
	for _, us := range []int64{800, 1500, 2000} {
		login.RecordValue(us)
	}
	for _, us := range []int64{2000, 20000, 250000} {
		items.RecordValue(us)
	}
	dur := result.NewHistogram()
	for _, us := range []int64{3000, 30000, 300000} {
		dur.RecordValue(us)
	}
	live.Flow = &load.FlowLive{
		Iterations: 3, Aborted: 1, Duration: dur,
		Steps: []load.StepLive{
			{Name: "login", Requests: 3, Latency: login},
			{Name: "items", Requests: 3, Errors: 1, Latency: items},
		},
		Checks: []result.FlowCheck{
			{Step: "login", Check: "status", Passed: 3},
			{Step: "items", Check: "json a", Passed: 2, Failed: 1},
			{Step: "items", Check: "json a", Passed: 1},
		},
	}
	return live
}

// TestFlowSeriesMatchGolden serves a flow run's Live and compares the
// text format with testdata/flow.golden: the run's series as before,
// then each step's requests, errors and latency histogram, each check's
// passes and failures (two checks of one name and step added up), and
// the iterations (with their durations' histogram) and checks in total.
func TestFlowSeriesMatchGolden(t *testing.T) {
	exp := NewExporter(result.Shard{}, []float64{0.001, 0.002, 0.02, 0.1})
	exp.Update(constructedFlow())
	srv, err := Listen("127.0.0.1:0", exp)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background(), 0)
	got := scrape(t, "http://"+srv.Addr().String()+Path, "text/plain")
	path := filepath.Join("testdata", "flow.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("scrape:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

// TestRunWithoutFlowHasNoStepSeries: a run of requests serves no
// gust_load_step_* or gust_load_flow_* series.
func TestRunWithoutFlowHasNoStepSeries(t *testing.T) {
	exp := NewExporter(result.Shard{}, nil)
	exp.Update(constructedLive())
	for name := range gather(t, exp) {
		for _, p := range []string{"gust_load_step_", "gust_load_flow_"} {
			if len(name) > len(p) && name[:len(p)] == p {
				t.Errorf("%s served for a run without a flow", name)
			}
		}
	}
}
