package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoadFlowMetricsBySteps scrapes gust load --flow --metrics-addr
// while a 2.5 s journey runs and while it lingers after. During the run
// (connections up) the login and items steps already have responses and
// passed checks, and the failing step failed checks. After, the values
// served are the report's exactly: each step's requests and latency
// count its endpoint's, each check's passes and failures the report's,
// and the iterations (and their durations' count) and checks in total.
func TestLoadFlowMetricsBySteps(t *testing.T) {
	_, srv := newJourneyServer(t)
	src := journeyFlow + "  - name: fail\n    url: /fail\n    check: {status: 200}\n"
	f := dataFiles(t, map[string]string{"flow.yaml": src})
	addr := freeAddr(t)
	type run struct {
		out, stderr string
		err         error
	}
	ran := make(chan run, 1)
	go func() {
		out, stderr, err := gust(t, "load", "--quiet", "-o", "json", "--flow", f["flow.yaml"], "--vus", "4", "-z", "2500ms",
			"--metrics-addr", addr, "--metrics-linger", "2s", srv.URL)
		ran <- run{out, stderr, err}
	}()

	var during, last map[string]float64
	deadline := time.Now().Add(30 * time.Second)
	var r run
poll:
	for {
		select {
		case r = <-ran:
			break poll
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not end within 30s")
		}
		if m, err := scrapeSeries("http://" + addr + "/metrics"); err == nil {
			last = m
			if during == nil && m[`gust_load_connections{shard="0/1"}`] > 0 && m[`gust_load_step_requests_total{shard="0/1",step="login"}`] > 0 {
				during = m
			}
		}
		time.Sleep(50 * time.Millisecond) // the scrape interval, not a wait for the run
	}
	if r.err != nil {
		t.Fatalf("gust load: %v\n%s", r.err, r.stderr)
	}
	if during == nil {
		t.Fatal("no scrape during the run had step series with responses")
	}
	for _, series := range []string{
		`gust_load_step_requests_total{shard="0/1",step="items"}`,
		`gust_load_step_latency_seconds_count{shard="0/1",step="login"}`,
		`gust_load_step_checks_total{check="status",result="passed",shard="0/1",step="login"}`,
		`gust_load_step_checks_total{check="status",result="failed",shard="0/1",step="fail"}`,
		`gust_load_flow_checks_total{result="passed",shard="0/1"}`,
	} {
		if during[series] <= 0 {
			t.Errorf("during the run %s = %g, want it counting", series, during[series])
		}
	}

	s := flowSummary{}
	if err := json.Unmarshal([]byte(r.out), &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`gust_load_flow_iterations_total{shard="0/1"}`:             float64(s.Flows.Iterations),
		`gust_load_flow_iterations_aborted_total{shard="0/1"}`:     float64(s.Flows.Aborted),
		`gust_load_flow_checks_total{result="passed",shard="0/1"}`: float64(s.Flows.ChecksPassed),
		`gust_load_flow_checks_total{result="failed",shard="0/1"}`: float64(s.Flows.ChecksFailed),
	}
	for _, ep := range s.Endpoints {
		want[fmt.Sprintf(`gust_load_step_requests_total{shard="0/1",step=%q}`, ep.Endpoint)] = float64(ep.Count)
		want[fmt.Sprintf(`gust_load_step_latency_seconds_count{shard="0/1",step=%q}`, ep.Endpoint)] = float64(ep.Count)
	}
	for _, c := range s.Flows.Checks {
		want[fmt.Sprintf(`gust_load_step_checks_total{check=%q,result="passed",shard="0/1",step=%q}`, c.Check, c.Step)] = float64(c.Passed)
		want[fmt.Sprintf(`gust_load_step_checks_total{check=%q,result="failed",shard="0/1",step=%q}`, c.Check, c.Step)] = float64(c.Failed)
	}
	if len(s.Endpoints) != 3 || len(s.Flows.Checks) != 4 || s.Flows.Iterations == 0 || s.Flows.ChecksFailed == 0 {
		t.Fatalf("report: endpoints %+v, flows %+v: want 3 steps, 4 checks, iterations and failed checks", s.Endpoints, s.Flows)
	}
	for series, v := range want {
		got, ok := last[series]
		if !ok || got != v {
			t.Errorf("after the run %s = %g (served: %v), want the report's %g", series, got, ok, v)
		}
	}
}

// scrapeSeries gets url's metrics in the text format, each sample by its
// name and labels as written ("name{a=\"x\",b=\"y\"}").
func scrapeSeries(url string) (map[string]float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// TestPrometheusScrapesFlow has Debian's prometheus scrape a 3 s flow
// run every second and, from the values it stored while gust lingered,
// get the report's counts: each step's requests and latency count, each
// check's passes by step and check (names with spaces and brackets as
// labels), the failed checks, and the iterations.
func TestPrometheusScrapesFlow(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (apt-get install prometheus; .ci/run installs it when CI=true)")
	}
	_, srv := newJourneyServer(t)
	src := journeyFlow + "  - name: fail\n    url: /fail\n    check: {status: 200}\n"
	f := dataFiles(t, map[string]string{"flow.yaml": src})
	metricsAddr := freeAddr(t)
	prom := startPrometheus(t, bin, freeAddr(t), metricsAddr)
	prom.scrapePhase(t)
	out, stderr, err := gust(t, "load", "--quiet", "-o", "json", "--flow", f["flow.yaml"], "--vus", "4", "-z", "3s",
		"--metrics-addr", metricsAddr, "--metrics-linger", "3s", srv.URL)
	if err != nil {
		t.Fatalf("gust load: %v\n%s", err, stderr)
	}
	after := time.Now().Add(-1500 * time.Millisecond)
	var s flowSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Endpoints) != 3 || s.Flows.ChecksFailed == 0 {
		t.Fatalf("report: endpoints %+v, flows %+v: want 3 steps and failed checks", s.Endpoints, s.Flows)
	}
	want := map[string]int64{
		"gust_load_flow_iterations_total":                      s.Flows.Iterations,
		"gust_load_flow_iteration_seconds_count":               s.Flows.Iterations,
		`sum(gust_load_step_checks_total{result="failed"})`:    s.Flows.ChecksFailed,
		`gust_load_flow_checks_total{result="passed"}`:         s.Flows.ChecksPassed,
		`sum(gust_load_step_latency_seconds_count)`:            s.Requests,
		`sum(gust_load_step_requests_total)`:                   s.Requests,
		`gust_load_step_errors_total{step="items"}`:            0,
		`gust_load_flow_iterations_aborted_total{shard="0/1"}`: s.Flows.Aborted,
	}
	for _, ep := range s.Endpoints {
		want[fmt.Sprintf(`gust_load_step_requests_total{step=%q}`, ep.Endpoint)] = ep.Count
		want[fmt.Sprintf(`gust_load_step_latency_seconds_count{step=%q}`, ep.Endpoint)] = ep.Count
	}
	for _, c := range s.Flows.Checks {
		want[fmt.Sprintf(`gust_load_step_checks_total{step=%q,check=%q,result="passed"}`, c.Step, c.Check)] = c.Passed
	}
	for query, v := range want {
		if got := prom.value(t, query, after); got != float64(v) {
			t.Errorf("%s = %g in Prometheus, want the report's %d", query, got, v)
		}
	}
}
