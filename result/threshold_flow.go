package result

import (
	"errors"
	"fmt"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Thresholds on a run of user journeys: checks>99.9% (the share of
// checks that passed), and a latency or error_rate narrowed to one step
// (step:login p99<200ms) or to whole iterations (iteration p95<2s).

// setScope takes a scope written before the metric off *name.
func (t *Threshold) setScope(name *string) error {
	n := *name
	switch {
	case strings.HasPrefix(n, "step:"):
		rest := strings.TrimPrefix(n, "step:")
		i := strings.LastIndexByte(rest, ' ')
		if i < 0 || strings.TrimSpace(rest[:i]) == "" {
			return errors.New("write a step's threshold as step:NAME METRIC, e.g. step:login p99<200ms")
		}
		t.Scope, *name = "step:"+strings.TrimSpace(rest[:i]), rest[i+1:]
	case strings.HasPrefix(n, "iteration "):
		t.Scope, *name = "iteration", strings.TrimSpace(strings.TrimPrefix(n, "iteration "))
	default:
		t.setStreamScope(name)
		return nil
	}
	return nil
}

// judgeFlow judges a threshold on a flow's checks, steps or iterations.
func (t Threshold) judgeFlow(r *Result, fail StatusSet) Verdict {
	v := Verdict{Threshold: t}
	f := r.Flows
	if f == nil {
		v.Note = "not a flow run"
		return v
	}
	var hist *hdrhistogram.Histogram
	switch {
	case t.Metric == MetricChecks:
		if t.Scope != "" {
			v.Note = "checks count over the whole run"
			return v
		}
		total := f.ChecksPassed() + f.ChecksFailed()
		if total == 0 {
			v.Note = "no checks were made"
			return v
		}
		v.Value = float64(f.ChecksPassed()) / float64(total)
		v.OK = compare(v.Value, t.Op, t.Limit)
		return v
	case t.Scope == "iteration":
		hist = f.Duration
	default:
		name := strings.TrimPrefix(t.Scope, "step:")
		var ep *Endpoint
		for i := range r.Endpoints {
			if r.Endpoints[i].Name == name {
				ep = &r.Endpoints[i]
			}
		}
		if ep == nil {
			v.Note = fmt.Sprintf("no step %q answered", name)
			return v
		}
		if t.Metric == MetricErrorRate {
			total := ep.Requests + ep.Errors
			failed := ep.Errors
			if fail.Contains(500) || fail.Contains(503) {
				failed += ep.Status5xx
			}
			v.Value = float64(failed) / float64(total)
			v.OK = compare(v.Value, t.Op, t.Limit)
			return v
		}
		hist = ep.Latency
	}
	if !t.Metric.Latency() {
		v.Note = "a step or iteration takes a latency (p99, mean, min, max) or error_rate"
		return v
	}
	if hist == nil || hist.TotalCount() == 0 {
		v.Note = "nothing measured"
		return v
	}
	v.Value = t.latencyOf(hist)
	v.OK = compare(v.Value, t.Op, t.Limit)
	return v
}
