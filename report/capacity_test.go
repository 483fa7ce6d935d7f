package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// capacityRun is a search against a server that sustains about 5,000
// req/s under p99<10ms: 1,000 to 4,000 met, 8,000 missed (latency and
// rate), bisected down to 5,000 met and 5,500 missed on latency alone.
func capacityRun() *result.Capacity {
	slo, err := result.ParseThresholds([]string{"p99<10ms", "error_rate<1%"})
	if err != nil {
		panic(err)
	}
	step := func(rate, achieved float64, p99 int64, errs int64) result.CapacityStep {
		r := &result.Result{URL: "http://127.0.0.1:8080/", Method: "GET", Connections: 200, Rate: rate, Duration: 5 * time.Second,
			Latency: result.NewHistogram(), Lateness: result.NewHistogram(), Status: map[int]int64{}, Errors: map[result.ErrorKind]int64{}}
		n := int64(achieved * 5)
		record(r.Latency, 200, n*98/100, p99, n-n*98/100)
		r.Requests, r.Status[200] = n, n
		if errs > 0 {
			r.Errors[result.ErrReadTimeout] = errs
		}
		s := result.CapacityStep{Rate: rate, Result: r, Verdicts: result.Judge(r, slo, result.StatusSet{})}
		s.Short = r.RPS() < rate*0.95
		s.OK = !s.Short && result.Passed(s.Verdicts)
		return s
	}
	return &result.Capacity{
		SLO:     slo,
		MaxRate: 5000,
		Stop:    result.StopConverged,
		Elapsed: 52*time.Second + 300*time.Millisecond,
		Steps: []result.CapacityStep{
			step(1000, 1000, 900, 0), step(2000, 1999.8, 1200, 0), step(4000, 4000, 2500, 0),
			step(8000, 5100, 1_200_000, 900), step(6000, 5800, 45_000, 0), step(5000, 5000, 6000, 0), step(5500, 5499, 14_000, 0),
		},
	}
}

func TestWriteCapacity(t *testing.T) {
	for _, format := range CapacityFormats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCapacity(&buf, format, capacityRun()); err != nil {
				t.Fatal(err)
			}
			golden(t, "capacity."+format+".golden", buf.Bytes())
		})
	}
	if err := WriteCapacity(&bytes.Buffer{}, "xml", capacityRun()); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func TestCapacityReportSaysWhatMissed(t *testing.T) {
	c := capacityRun()
	var text bytes.Buffer
	if err := WriteCapacity(&text, "text", c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Capacity    5,000 req/s met the objective (converged after 7 steps in 52.3s)",
		"missed: achieved 63.7% of the rate, p99 1.2s, error_rate 3.41%",
		"missed: p99 14ms",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var doc CapacityDoc
	var js bytes.Buffer
	if err := WriteCapacity(&js, "json", c); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Capacity.MaxRate != 5000 || len(doc.Capacity.Steps) != 7 || !doc.Capacity.Steps[5].OK || doc.Capacity.Steps[3].OK || !doc.Capacity.Steps[3].Short {
		t.Errorf("JSON capacity %+v", doc.Capacity)
	}
	none := &result.Capacity{SLO: c.SLO, Stop: result.StopNoRate, Steps: c.Steps[3:4]}
	text.Reset()
	if err := WriteCapacity(&text, "text", none); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "no rate met the objective (the lowest rate missed after 1 step") {
		t.Errorf("a search that found nothing:\n%s", text.String())
	}
	if got := CapacityStepLine(0, c.Steps[0]); got != "step 1: 1,000 req/s: achieved 1,000.0, p50 200us, p99 900us, p99.9 900us, 0 errors: ok" {
		t.Errorf("step line %q", got)
	}
}

// TestCapacityReportCountsReruns: the bounds settled by running 5,000 and
// 5,500 again show in the steps, the Capacity line and the JSON.
func TestCapacityReportCountsReruns(t *testing.T) {
	c := capacityRun()
	for _, i := range []int{5, 6} {
		again := c.Steps[i]
		again.Rerun = true
		c.Steps = append(c.Steps, again)
	}
	var text bytes.Buffer
	if err := WriteCapacity(&text, "text", c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(converged after 9 steps, 2 of them reruns, in 52.3s)",
		"8     5,000     5,000.0     200us    6ms      6ms      0        ok (run again)",
		"missed (run again): p99 14ms",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteCapacity(&js, "json", c); err != nil {
		t.Fatal(err)
	}
	var doc CapacityDoc
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Capacity.Reruns != 2 || !doc.Capacity.Steps[7].Rerun || doc.Capacity.Steps[6].Rerun {
		t.Errorf("JSON reruns %d, steps 7 and 8 rerun: %v %v", doc.Capacity.Reruns, doc.Capacity.Steps[6].Rerun, doc.Capacity.Steps[7].Rerun)
	}
}
