package result

import (
	"strings"
	"testing"
	"time"
)

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		expr       string
		metric     Metric
		percentile float64
		op         string
		limit      float64
	}{
		{"p99<250ms", MetricPercentile, 99, "<", 250_000},
		{"p99.9<1s", MetricPercentile, 99.9, "<", 1_000_000},
		{" p50 <= 800us ", MetricPercentile, 50, "<=", 800},
		{"p100<2s", MetricPercentile, 100, "<", 2_000_000},
		{"P95<1.5ms", MetricPercentile, 95, "<", 1500},
		{"mean<20ms", MetricMean, 0, "<", 20_000},
		{"min>=1us", MetricMin, 0, ">=", 1},
		{"max<1µs", MetricMax, 0, "<", 1},
		{"error_rate<0.1%", MetricErrorRate, 0, "<", 0.001},
		{"error_rate<=0.02", MetricErrorRate, 0, "<=", 0.02},
		{"late_rate<1%", MetricLateRate, 0, "<", 0.01},
		{"rps>=1000", MetricRPS, 0, ">=", 1000},
		{"rps > 2.5e3", MetricRPS, 0, ">", 2500},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			th, err := ParseThreshold(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if th.Metric != tt.metric || th.Percentile != tt.percentile || th.Op != tt.op || !near(th.Limit, tt.limit) {
				t.Errorf("got %+v, want metric %s p%g %s %g", th, tt.metric, tt.percentile, tt.op, tt.limit)
			}
			if th.Expr != strings.TrimSpace(tt.expr) {
				t.Errorf("Expr %q, want the expression as written", th.Expr)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestParseThresholdRefuses(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"p99", "has no comparison"},
		{"", "has no comparison"},
		{"p99=250ms", "operator must be"},
		{"p99==250ms", "operator must be"},
		{"p99<>250ms", "is not a number"},
		{"<250ms", "no metric"},
		{"p99<", "has no value"},
		{"p99<250", "with a unit"},
		{"p99<250xs", "is not a number"},
		{"p99<-1ms", "is not a number"},
		{"p0<1ms", "unknown metric"},
		{"p101<1ms", "unknown metric"},
		{"p1e1<1ms", "unknown metric"},
		{"pp99<1ms", "unknown metric"},
		{"latency<1ms", "unknown metric"},
		{"error_rate<150%", "more than 100%"},
		{"error_rate<2", "fraction up to 1"},
		{"error_rate<1ms", "is not a number"},
		{"rps>=fast", "is not a number"},
		{"rps>=NaN", "is not a number"},
		{"rps>=Inf", "is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := ParseThreshold(tt.expr)
			if err == nil {
				t.Fatalf("accepted %q", tt.expr)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line with %q", err, tt.want)
			}
		})
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p99<250ms", "p99.9<=1s", "error_rate<0.1%", "rps>=1000", "late_rate<1%", "mean < 2us", "p<", "<=>"} {
		f.Add(s)
	}
	r := judgeFixture()
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := ParseThreshold(expr)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		if th.Limit < 0 || th.Limit != th.Limit {
			t.Errorf("%q: limit %g", expr, th.Limit)
		}
		th.Judge(r, StatusSet{}) // must not panic
	})
}

// judgeFixture is an open-model run of 10 s at 1,000 req/s: 9,000
// responses at 1 ms, 889 at 5 ms, 100 at 20 ms and 11 at 300 ms (so p99
// is 20 ms and p99.9 300 ms), 40 of them 503s, 50 timeouts, and 200 of the
// 10,000 requests sent late.
func judgeFixture() *Result {
	r := &Result{Rate: 1000, Duration: 10 * time.Second, Latency: NewHistogram(), Lateness: NewHistogram(),
		Status: map[int]int64{200: 9960, 503: 40}, Errors: map[ErrorKind]int64{ErrReadTimeout: 50}, Late: 200}
	r.Latency.RecordValues(1000, 9000)
	r.Latency.RecordValues(5000, 889)
	r.Latency.RecordValues(20000, 100)
	r.Latency.RecordValues(300000, 11)
	r.Requests = r.Latency.TotalCount()
	r.Lateness.RecordValues(10, 9800)
	r.Lateness.RecordValues(5000, 200)
	return r
}

// TestJudge passes and fails every kind of threshold on a constructed run.
func TestJudge(t *testing.T) {
	r := judgeFixture()
	fail5xx, err := ParseStatusSet("5xx")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		expr  string
		fail  StatusSet
		ok    bool
		value float64
	}{
		{"p99<25ms", StatusSet{}, true, 20000},
		{"p99<20ms", StatusSet{}, false, 20000},
		{"p99.9<=300ms", StatusSet{}, false, 300000},
		{"p99.9<=301ms", StatusSet{}, true, 300000},
		{"p50<1.1ms", StatusSet{}, true, 1000},
		{"p50>1.1ms", StatusSet{}, false, 1000},
		{"mean<2ms", StatusSet{}, true, 1874.5},
		{"mean<1.8ms", StatusSet{}, false, 1874.5},
		{"max<1s", StatusSet{}, true, 300000},
		{"max<300ms", StatusSet{}, false, 300000},
		{"min>=1ms", StatusSet{}, true, 1000},
		{"min>1ms", StatusSet{}, false, 1000},
		// 50 timeouts of 10,050 requests that ended: 0.4975%.
		{"error_rate<0.5%", StatusSet{}, true, 50.0 / 10050},
		{"error_rate<0.4%", StatusSet{}, false, 50.0 / 10050},
		// With 5xx failed, the 40 503s count too: 0.8955%.
		{"error_rate<0.5%", fail5xx, false, 90.0 / 10050},
		{"error_rate<1%", fail5xx, true, 90.0 / 10050},
		{"late_rate<2.5%", StatusSet{}, true, 0.02},
		{"late_rate<2%", StatusSet{}, false, 0.02},
		{"rps>=1000", StatusSet{}, true, 1000},
		{"rps>1000", StatusSet{}, false, 1000},
		{"rps<=999", StatusSet{}, false, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.expr+" "+tt.fail.String(), func(t *testing.T) {
			th, err := ParseThreshold(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			v := th.Judge(r, tt.fail)
			if v.OK != tt.ok || v.Note != "" {
				t.Errorf("ok %v (%q), want %v", v.OK, v.Note, tt.ok)
			}
			// Latencies are the histogram's: within its 3 digits.
			if d := (v.Value - tt.value) / tt.value; d > 0.002 || d < -0.002 {
				t.Errorf("value %g, want %g", v.Value, tt.value)
			}
		})
	}
}

// TestJudgeUnmeasured fails thresholds a run cannot measure.
func TestJudgeUnmeasured(t *testing.T) {
	closed := judgeFixture()
	closed.Rate = 0
	empty := &Result{Duration: time.Second, Rate: 100, Latency: NewHistogram(), Lateness: NewHistogram()}
	tests := []struct {
		name, expr string
		r          *Result
		note       string
	}{
		{"latency without responses", "p99<1s", empty, "no responses"},
		{"a rate without requests", "error_rate<=100%", empty, "no requests ended"},
		{"late_rate in the closed model", "late_rate<=100%", closed, "closed model"},
		{"late_rate without requests sent", "late_rate<=100%", empty, "no requests were sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := ParseThreshold(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			v := th.Judge(tt.r, StatusSet{})
			if v.OK || !strings.Contains(v.Note, tt.note) {
				t.Errorf("ok %v, note %q; want a failure noting %q", v.OK, v.Note, tt.note)
			}
		})
	}
	if Passed([]Verdict{{OK: true}, {OK: false}}) || !Passed(nil) {
		t.Error("Passed is wrong")
	}
}

// TestThresholdJudgesMergedHistogram builds two agents whose p99s average
// under the limit while the p99 of their merged histogram is over it, and
// the reverse: a merged run is judged on the merged histogram.
func TestThresholdJudgesMergedHistogram(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	ms := func(n int, v int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	tests := []struct {
		name string
		a, b []int64
		expr string
		ok   bool
	}{
		// a: p99 1 ms; b: 3% at 100 ms, p99 100 ms. Average 50.5 ms;
		// merged 1.5% at 100 ms, so its p99 is 100 ms.
		{"average passes, merged fails", ms(1000, 1000), append(ms(970, 1000), ms(30, 100_000)...), "p99<60ms", false},
		// a: p99 1 ms; b: 1.5% at 100 ms, p99 100 ms. Average 50.5 ms;
		// merged 0.75% at 100 ms, so its p99 is 1 ms.
		{"average fails, merged passes", ms(1000, 1000), append(ms(985, 1000), ms(15, 100_000)...), "p99<2ms", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := agentResult(Shard{0, 2}, start, [][]int64{tt.a})
			b := agentResult(Shard{1, 2}, start, [][]int64{tt.b})
			th, err := ParseThreshold(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			avg := (float64(a.Latency.ValueAtQuantile(99)) + float64(b.Latency.ValueAtQuantile(99))) / 2
			if compare(avg, th.Op, th.Limit) == tt.ok {
				t.Fatalf("bad fixture: the agents' average p99 %g us already judges %v", avg, tt.ok)
			}
			merged, err := Merge([]Part{{Name: "a", Result: a}, {Name: "b", Result: b}}, DefaultMaxSkew)
			if err != nil {
				t.Fatal(err)
			}
			v := th.Judge(merged, StatusSet{})
			if v.OK != tt.ok {
				t.Errorf("merged p99 %g us judged %v, want %v", v.Value, v.OK, tt.ok)
			}
		})
	}
}

func TestParseStatusSet(t *testing.T) {
	s, err := ParseStatusSet(" 5xx, 429 ,400-404")
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[int]bool{500: true, 599: true, 503: true, 429: true, 400: true, 404: true, 405: false, 200: false, 499: false, 428: false} {
		if s.Contains(code) != want {
			t.Errorf("Contains(%d) = %v, want %v", code, !want, want)
		}
	}
	if (StatusSet{}).Contains(500) {
		t.Error("the zero set holds 500")
	}
	for _, bad := range []string{"6xx", "5x", "50", "600", "abc", "504-500", "500-700", "5xx,", "xx"} {
		if _, err := ParseStatusSet(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseStatusSet(%q) = %v, want a one-line error", bad, err)
		}
	}
}

func FuzzParseStatusSet(f *testing.F) {
	for _, s := range []string{"5xx", "429,5xx", "500-504", " 503 ", "", "5x", "600", "1-2-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseStatusSet(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		for code := 0; code < 100; code++ {
			if set.Contains(code) {
				t.Errorf("%q holds %d, not a status", s, code)
			}
		}
		if set.Contains(600) {
			t.Errorf("%q holds 600", s)
		}
	})
}
