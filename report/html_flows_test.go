package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// flowRun is a run of user journeys: a login that redirects, an items
// step with a failing check, iterations aborted and dropped, and a step
// name the page must escape.
func flowRun() *result.Result {
	latency, seconds := timeline(3, false, 120, noErrors, func(s int, h *hdrhistogram.Histogram) {
		record(h, 300, 2000, 1800, 60)
	})
	var endpoints []result.Endpoint
	add := func(name string, valueCounts ...int64) {
		h := result.NewEndpointHistogram()
		record(h, valueCounts...)
		endpoints = append(endpoints, result.Endpoint{Name: name, Requests: h.TotalCount(), Latency: h})
	}
	add("login", 300, 4000, 1800, 120)
	add("items <all>", 300, 2000)
	dur := result.NewHistogram()
	record(dur, 2100, 1500, 4800, 450, 91000, 50)
	n := latency.TotalCount()
	return &result.Result{
		URL: "http://127.0.0.1:18620", Method: "GET", Connections: 20, Loops: 2, Pipeline: 1, KeepAlive: true,
		Start: fixtureStart, Duration: 3 * time.Second, Requests: n, BytesRead: n * 120, BytesWritten: n * 90,
		Connects: 20, Latency: latency, Connect: result.NewHistogram(), Status: map[int]int64{200: n},
		Errors: map[result.ErrorKind]int64{}, Timeline: seconds, Endpoints: endpoints,
		Flows: &result.Flows{
			Model: "20 users looping", Iterations: 2000, Aborted: 12, Dropped: 3, Duration: dur,
			Steps: []result.FlowStep{
				{Name: "login", Status: map[int]int64{302: 2060, 200: 2060}},
				{Name: "items <all>", Status: map[int]int64{200: 2000}},
			},
			Checks: []result.FlowCheck{
				{Step: "login", Check: "status", Passed: 2060},
				{Step: "items <all>", Check: "json items[0].name", Passed: 1988, Failed: 12},
			},
		},
	}
}

// TestHTMLFlows: the page's flows section (golden file) shows what the
// text report's does: the iterations with the aborted and dropped, the
// iteration duration's p50, p90, p99 and max, each step's statuses, and
// each check's passes and failures, the failed flagged, the names
// escaped; a run without flows has no such section.
func TestHTMLFlows(t *testing.T) {
	r := flowRun()
	var page, text bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "html_flow.golden", page.Bytes())
	p := page.String()
	var iteration string
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(l, "Iteration ") {
			iteration = l
		}
	}
	fields := strings.Fields(iteration) // Iteration p50 X p90 X p99 X max X
	if len(fields) != 9 {
		t.Fatalf("text report's iteration line %q", iteration)
	}
	cells := "<td>duration</td><td>" + fields[2] + "</td><td>" + fields[4] + "</td><td>" + fields[6] + "</td><td>" + fields[8] + "</td>"
	for _, want := range []string{
		"<h2>Flows</h2>",
		"<td>2,000 iterations, 12 aborted, 3 dropped (no user free)</td>",
		"<td>4,048 passed, 12 failed (99.7% passed)</td>",
		cells,
		`<td class="l">login</td><td class="l">200: 2,060, 302: 2,060</td>`,
		`<td class="l">items &lt;all&gt;</td><td class="l">json items[0].name</td><td>1,988</td><td class="flag">12</td><td>99.4%</td>`,
		`<td class="l">login</td><td class="l">status</td><td>2,060</td><td>0</td><td>100.0%</td>`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, want := range []string{"2,000 iterations, 12 aborted, 3 dropped", "4,048 passed, 12 failed (99.7% passed)", "200: 2,060, 302: 2,060"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %s: the two sections differ", want)
		}
	}
	page.Reset()
	if err := HTML(&page, closedRun()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<h2>Flows</h2>") {
		t.Error("a run without flows has a flows section")
	}
}
