package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gust-http/gust/load"
)

// A flow run's series (gust load --flow): each step is an endpoint with
// its own requests, failures and latency, each check counts its passes
// and failures, and the iterations are counted whole. Labelled like the
// run's, with the step's name and the check's.
var (
	descStepRequests = prometheus.NewDesc("gust_load_step_requests_total", "Responses to a flow step's requests while measuring (each hop of a redirect one).", []string{"shard", "step"}, nil)
	descStepErrors   = prometheus.NewDesc("gust_load_step_errors_total", "A flow step's requests that failed without a response while measuring.", []string{"shard", "step"}, nil)
	descStepLatency  = prometheus.NewDesc("gust_load_step_latency_seconds", "Latency of the responses counted in gust_load_step_requests_total.", []string{"shard", "step"}, nil)
	descStepChecks   = prometheus.NewDesc("gust_load_step_checks_total", "A flow step's checks, by check and result (passed or failed).", []string{"shard", "step", "check", "result"}, nil)
	descIterations   = prometheus.NewDesc("gust_load_flow_iterations_total", "Flow iterations finished while measuring, aborted ones too.", []string{"shard"}, nil)
	descIteration    = prometheus.NewDesc("gust_load_flow_iteration_seconds", "Duration of the iterations counted in gust_load_flow_iterations_total, from start (intended start in the open model) to the last answer.", []string{"shard"}, nil)
	descAborted      = prometheus.NewDesc("gust_load_flow_iterations_aborted_total", "Flow iterations a failed request, or a failed check with abort, ended early.", []string{"shard"}, nil)
	descFlowChecks   = prometheus.NewDesc("gust_load_flow_checks_total", "Checks of every step, by result (passed or failed).", []string{"shard", "result"}, nil)
)

func describeFlow(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descStepRequests, descStepErrors, descStepLatency, descStepChecks, descIterations, descIteration, descAborted, descFlowChecks} {
		ch <- d
	}
}

// flowSnap is a FlowLive mapped for Prometheus.
type flowSnap struct {
	iterations, aborted int64
	passed, failed      int64
	duration            histSnap
	steps               []stepSnap
	checks              []checkSnap
}

type stepSnap struct {
	name             string
	requests, errors int64
	latency          histSnap
}

// checkSnap is one series of gust_load_step_checks_total's pairs: the
// checks of a step of the same name (two json checks of one path) add up.
type checkSnap struct {
	step, check    string
	passed, failed int64
}

// mapFlow maps f's counts, and its steps' histograms onto bounds; nil
// for a run that is not a flow.
func mapFlow(f *load.FlowLive, bounds []float64) *flowSnap {
	if f == nil {
		return nil
	}
	s := &flowSnap{iterations: f.Iterations, aborted: f.Aborted, duration: mapHistogram(f.Duration, bounds), steps: make([]stepSnap, len(f.Steps))}
	for i, st := range f.Steps {
		s.steps[i] = stepSnap{name: st.Name, requests: st.Requests, errors: st.Errors, latency: mapHistogram(st.Latency, bounds)}
	}
	seen := make(map[[2]string]int, len(f.Checks))
	for _, c := range f.Checks {
		s.passed += c.Passed
		s.failed += c.Failed
		k := [2]string{c.Step, c.Check}
		i, ok := seen[k]
		if !ok {
			i = len(s.checks)
			seen[k] = i
			s.checks = append(s.checks, checkSnap{step: c.Step, check: c.Check})
		}
		s.checks[i].passed += c.Passed
		s.checks[i].failed += c.Failed
	}
	return s
}

// collect sends s's series, labelled with shard sh.
func (s *flowSnap) collect(ch chan<- prometheus.Metric, sh string) {
	counter := func(d *prometheus.Desc, n int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), append([]string{sh}, labels...)...)
	}
	for i := range s.steps {
		st := &s.steps[i]
		counter(descStepRequests, st.requests, st.name)
		counter(descStepErrors, st.errors, st.name)
		ch <- newHistMetric(descStepLatency, &st.latency, sh, st.name)
	}
	for _, c := range s.checks {
		counter(descStepChecks, c.passed, c.step, c.check, "passed")
		counter(descStepChecks, c.failed, c.step, c.check, "failed")
	}
	counter(descIterations, s.iterations)
	ch <- newHistMetric(descIteration, &s.duration, sh)
	counter(descAborted, s.aborted)
	counter(descFlowChecks, s.passed, "passed")
	counter(descFlowChecks, s.failed, "failed")
}
