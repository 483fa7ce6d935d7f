package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// replayRun is a replay at 5x the log's pace with 33 endpoints: more than
// the text lists.
func replayRun() *result.Result {
	latency, seconds := timeline(4, false, 200, func(s int) int64 { return int64(s) }, func(s int, h *hdrhistogram.Histogram) {
		record(h, 150, 3000, 900, 800, 12000, 20)
	})
	lateness := result.NewHistogram()
	record(lateness, 5, 11000, 2500, 60)
	var endpoints []result.Endpoint
	add := func(name string, errs, s5xx int64, valueCounts ...int64) {
		h := result.NewEndpointHistogram()
		record(h, valueCounts...)
		endpoints = append(endpoints, result.Endpoint{Name: name, Requests: h.TotalCount(), Errors: errs, Status5xx: s5xx, Latency: h})
	}
	add("POST /api/orders", 2, 40, 900, 700, 12000, 20)
	add("GET /api/users/:id", 0, 0, 150, 7000)
	add("GET /health", 0, 0)
	add("GET /api/users/:id/orders", 4, 0, 150, 3000, 900, 100)
	for i := 0; i < 29; i++ {
		add(fmt.Sprintf("GET /static/file%02d.js", i), 0, 0, 150, int64(29-i))
	}
	n := latency.TotalCount()
	return &result.Result{
		URL:          "http://127.0.0.1:18091/",
		Connections:  50,
		Loops:        1,
		Pipeline:     1,
		Speed:        5,
		KeepAlive:    true,
		Start:        fixtureStart,
		Duration:     3*time.Second + 500*time.Millisecond,
		Requests:     n,
		BytesRead:    n * 200,
		BytesWritten: n * 150,
		Connects:     50,
		Latency:      latency,
		Connect:      result.NewHistogram(),
		Lateness:     lateness,
		Late:         60,
		Status:       map[int]int64{200: n - 40, 503: 40},
		Errors:       map[result.ErrorKind]int64{result.ErrClosed: 6},
		Timeline:     seconds,
		Endpoints:    endpoints,
	}
}

func replayInput() *result.Input {
	return &result.Input{
		File: "access.log.gz", Format: "combined", Lines: 15_230, Requests: 15_000, Filtered: 200, Skipped: 30, Passes: 1,
		SkippedLines: []result.SkippedLine{
			{Line: 17, Reason: "no [time] field", Text: "garbage"},
			{Line: 18, Reason: `request line is "-" (the client sent no request)`, Text: `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "-" 400 0 "-" "-"`},
		},
	}
}

// replayResult is replayRun with what was read from its log.
func replayResult() *result.Result {
	r := replayRun()
	r.Input = replayInput()
	return r
}

func TestReplayReports(t *testing.T) {
	var text, doc bytes.Buffer
	if err := Write(&text, "text", replayResult()); err != nil {
		t.Fatal(err)
	}
	golden(t, "replay_text.golden", text.Bytes())
	if err := Write(&doc, "json", replayResult()); err != nil {
		t.Fatal(err)
	}
	golden(t, "replay_json.golden", doc.Bytes())
}

func TestEndpointTable(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, replayRun()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"open model at the log's times x5",
		"Schedule    60 of 11,060 requests started more than 1ms late",
		"Endpoints   count      errors     5xx        p50      p99      endpoint",
		"            7,000      0          0          150us    150us    GET /api/users/:id",
		"(and 2 more with 3 responses: -o json lists them all)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// Busiest first; an endpoint with only errors still shows, without latencies.
	order := []string{"GET /api/users/:id", "GET /api/users/:id/orders", "POST /api/orders", "GET /static/file00.js"}
	last := -1
	for _, name := range order {
		i := strings.Index(out, name+"\n")
		if i < last {
			t.Errorf("%s is out of order", name)
		}
		last = i
	}
	if strings.Contains(out, "GET /health") {
		t.Error("an endpoint with neither responses nor errors is listed")
	}

	var doc Summary
	buf.Reset()
	if err := JSON(&buf, replayRun()); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Endpoints) != 32 || doc.Endpoints[0].Endpoint != "GET /api/users/:id" || doc.Speed != 5 || doc.Late == nil {
		t.Errorf("JSON endpoints %d (first %+v), speed %g, late %v: want 32, busiest first, speed 5 and lateness",
			len(doc.Endpoints), doc.Endpoints[0], doc.Speed, doc.Late)
	}
	if e := doc.Endpoints[2]; e.Endpoint != "POST /api/orders" || e.Count != 720 || e.Errors != 2 || e.Status5xx != 40 || e.P50us != 903 || e.P99us != 12031 {
		t.Errorf("second endpoint %+v", e)
	}
}
