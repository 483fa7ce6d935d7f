package result

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Metric names what a Threshold measures of a Result.
type Metric string

// The metrics a Threshold can judge. A latency metric is one of MetricMin,
// MetricMean, MetricMax or MetricPercentile (with Threshold.Percentile).
const (
	MetricMin        Metric = "min"        // the lowest latency
	MetricMean       Metric = "mean"       // the mean latency
	MetricMax        Metric = "max"        // the highest latency
	MetricPercentile Metric = "percentile" // a latency percentile, pN
	MetricErrorRate  Metric = "error_rate" // failed / (responses + errors), see FailStatus
	MetricLateRate   Metric = "late_rate"  // requests sent more than LateThreshold late / requests sent
	MetricRPS        Metric = "rps"        // responses per second over the measured time
	MetricChecks     Metric = "checks"     // a flow's checks passed / checks made
)

// Latency reports whether m is measured in microseconds of latency.
func (m Metric) Latency() bool {
	return m == MetricMin || m == MetricMean || m == MetricMax || m == MetricPercentile
}

// Threshold is one pass/fail condition on a whole run, such as p99<250ms
// or error_rate<0.1% (gust load --threshold). Latency limits are held in
// microseconds and rates as fractions (0.001 for 0.1%).
type Threshold struct {
	// Expr is the expression as written.
	Expr string
	// Metric is what is measured; Percentile is N of pN for
	// MetricPercentile.
	Metric     Metric
	Percentile float64
	// Op is the comparison the measured value must pass: <, <=, > or >=.
	Op string
	// Limit is the right-hand side: microseconds for latency, a fraction
	// for a rate, responses per second for rps.
	Limit float64
	// Scope narrows the metric to a flow's step ("step:login") or its
	// iterations ("iteration", whose latency is an iteration's duration),
	// or to streamed responses' first event, first byte or gaps
	// ("first_event", "first_byte", "gap"); "" is the whole run.
	Scope string
}

// ParseThreshold reads an expression METRIC OP VALUE: METRIC is a latency
// (pN for a percentile such as p99 or p99.9, mean, min, max) with a value
// in us, ms or s; error_rate or late_rate with a percentage (0.1%) or a
// fraction (0.001); or rps with a plain number. OP is <, <=, > or >=.
// Spaces around the parts are allowed. Errors are one line naming the
// expression.
func ParseThreshold(expr string) (Threshold, error) {
	t := Threshold{Expr: strings.TrimSpace(expr)}
	i := strings.IndexAny(t.Expr, "<>=")
	if i < 0 {
		return t, fmt.Errorf("threshold %q has no comparison: write e.g. p99<250ms (operators < <= > >=)", expr)
	}
	t.Op = t.Expr[i : i+1]
	rest := t.Expr[i+1:]
	if strings.HasPrefix(rest, "=") {
		t.Op += "="
		rest = rest[1:]
	}
	if t.Op != "<" && t.Op != "<=" && t.Op != ">" && t.Op != ">=" {
		return t, fmt.Errorf("threshold %q: the operator must be <, <=, > or >=", expr)
	}
	name := strings.TrimSpace(t.Expr[:i])
	value := strings.TrimSpace(rest)
	if err := t.setScope(&name); err != nil {
		return t, fmt.Errorf("threshold %q: %w", expr, err)
	}
	if err := t.setMetric(name); err != nil {
		return t, fmt.Errorf("threshold %q: %w", expr, err)
	}
	if value == "" {
		return t, fmt.Errorf("threshold %q has no value after %s", expr, t.Op)
	}
	limit, err := parseLimit(t.Metric, value)
	if err != nil {
		return t, fmt.Errorf("threshold %q: %w", expr, err)
	}
	t.Limit = limit
	return t, nil
}

// setMetric reads the metric's name.
func (t *Threshold) setMetric(name string) error {
	switch m := Metric(strings.ToLower(name)); m {
	case MetricMin, MetricMean, MetricMax, MetricErrorRate, MetricLateRate, MetricRPS, MetricChecks:
		t.Metric = m
		return nil
	}
	if n, ok := strings.CutPrefix(strings.ToLower(name), "p"); ok && n != "" {
		q, err := strconv.ParseFloat(n, 64)
		if err == nil && q > 0 && q <= 100 && !strings.ContainsAny(n, "eExX+-") {
			t.Metric, t.Percentile = MetricPercentile, q
			return nil
		}
	}
	if name == "" {
		return errors.New("no metric before the operator: write e.g. p99<250ms")
	}
	return fmt.Errorf("unknown metric %q: use a latency (p50, p99, p99.9, mean, min, max), error_rate, late_rate, rps or checks", name)
}

// latencyUnits are the units a latency limit may be given in, in
// microseconds.
var latencyUnits = []struct {
	suffix string
	us     float64
}{{"us", 1}, {"µs", 1}, {"ms", 1e3}, {"s", 1e6}}

// parseLimit reads a limit for m in its unit: microseconds for latency,
// a fraction for a rate.
func parseLimit(m Metric, v string) (float64, error) {
	num := func(s string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return 0, fmt.Errorf("%q is not a number of at least 0", v)
		}
		return f, nil
	}
	switch {
	case m.Latency():
		for _, u := range latencyUnits {
			// us and ms come before s, so that s matches only seconds.
			if s, ok := strings.CutSuffix(v, u.suffix); ok {
				f, err := num(s)
				return f * u.us, err
			}
		}
		return 0, fmt.Errorf("give the latency %q with a unit: us, ms or s (e.g. 250ms)", v)
	case m == MetricErrorRate || m == MetricLateRate || m == MetricChecks:
		if s, ok := strings.CutSuffix(v, "%"); ok {
			f, err := num(s)
			if err == nil && f > 100 {
				return 0, fmt.Errorf("%s is more than 100%%", v)
			}
			return f / 100, err
		}
		f, err := num(v)
		if err == nil && f > 1 {
			return 0, fmt.Errorf("a rate is a percentage (0.1%%) or a fraction up to 1, got %s", v)
		}
		return f, err
	}
	return num(v)
}

// ParseThresholds parses each expression (see ParseThreshold), stopping at
// the first error.
func ParseThresholds(exprs []string) ([]Threshold, error) {
	ts := make([]Threshold, 0, len(exprs))
	for _, e := range exprs {
		t, err := ParseThreshold(e)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// Verdict is a Threshold judged on a Result.
type Verdict struct {
	Threshold
	// Value is what was measured, in the Threshold's unit; meaningless
	// when Note is set.
	Value float64
	// OK is true when Value passed the comparison.
	OK bool
	// Note says why nothing could be measured ("no responses", "closed
	// model"); a threshold with a Note fails.
	Note string
}

// Judge measures t's metric on r and compares it with the limit. Statuses
// in fail count as failed requests for error_rate. A metric r cannot give
// (latency without responses, late_rate in the closed model, a rate of an
// empty run) fails with a Note: a threshold must not pass unmeasured.
func (t Threshold) Judge(r *Result, fail StatusSet) Verdict {
	v := Verdict{Threshold: t}
	if isStreamScope(t.Scope) {
		return t.judgeStream(r)
	}
	if t.Scope != "" || t.Metric == MetricChecks {
		return t.judgeFlow(r, fail)
	}
	switch t.Metric {
	case MetricMin, MetricMean, MetricMax, MetricPercentile:
		if r.Latency == nil || r.Latency.TotalCount() == 0 {
			v.Note = "no responses"
			return v
		}
		v.Value = t.latencyOf(r.Latency)
	case MetricErrorRate:
		failed := r.ErrorCount() + r.GRPC.Failed() // a gRPC call answered 200 may still fail
		for code, n := range r.Status {
			if fail.Contains(code) {
				failed += n
			}
		}
		total := r.Requests + r.ErrorCount()
		if total == 0 {
			v.Note = "no requests ended"
			return v
		}
		v.Value = float64(failed) / float64(total)
	case MetricLateRate:
		if !r.Scheduled() {
			v.Note = "closed model: no schedule to be late for"
			return v
		}
		if r.Lateness == nil || r.Lateness.TotalCount() == 0 {
			v.Note = "no requests were sent"
			return v
		}
		v.Value = float64(r.Late) / float64(r.Lateness.TotalCount())
	case MetricRPS:
		v.Value = r.RPS()
	}
	v.OK = compare(v.Value, t.Op, t.Limit)
	return v
}

// compare reports whether value op limit holds.
func compare(value float64, op string, limit float64) bool {
	switch op {
	case "<":
		return value < limit
	case "<=":
		return value <= limit
	case ">":
		return value > limit
	case ">=":
		return value >= limit
	}
	return false
}

// Judge judges every threshold on r, in order.
func Judge(r *Result, ts []Threshold, fail StatusSet) []Verdict {
	vs := make([]Verdict, len(ts))
	for i, t := range ts {
		vs[i] = t.Judge(r, fail)
	}
	return vs
}

// Passed reports whether every verdict is OK; true for none.
func Passed(vs []Verdict) bool {
	for _, v := range vs {
		if !v.OK {
			return false
		}
	}
	return true
}

// latencyOf measures t's latency metric (min, mean, max or a percentile)
// of h, which holds values.
func (t Threshold) latencyOf(h *hdrhistogram.Histogram) float64 {
	switch t.Metric {
	case MetricMin:
		return float64(h.Min())
	case MetricMean:
		return h.Mean()
	case MetricMax:
		return float64(h.Max())
	}
	return float64(h.ValueAtQuantile(t.Percentile))
}
