package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// FlowLive is a flow run's measurements so far, in Live.Flow: each
// step's requests, failures and latency, each check's outcomes, and the
// iterations and their durations, cumulative from the start of measurement like the rest of
// the Live. Each loop hands over its own counts once a second, copied
// from the counters it keeps anyway (its endpoints, its flow.Stats), so
// watching a flow adds nothing per request.
type FlowLive struct {
	// Iterations counts the iterations finished, Aborted those of them a
	// failed request or a failed check with abort ended early.
	Iterations int64
	Aborted    int64
	// Duration holds the iterations' durations in microseconds
	// (result.NewHistogram's), as result.Flows.Duration.
	Duration *hdrhistogram.Histogram
	// Steps holds every step, by step number.
	Steps []StepLive
	// Checks holds every check, in the flow's order, each named by its
	// step and its kind (result.FlowCheck).
	Checks []result.FlowCheck
}

// StepLive is one step's measurements so far.
type StepLive struct {
	Name string
	// Requests counts the step's responses (each hop of a redirect one),
	// Errors its requests that failed without one.
	Requests int64
	Errors   int64
	// Latency holds the responses' latencies in microseconds
	// (result.NewEndpointHistogram's).
	Latency *hdrhistogram.Histogram
}

// newFlowLive returns a FlowLive for run's flow, every count at zero.
func newFlowLive(run *FlowRun) *FlowLive {
	names := run.Flow.Steps()
	f := &FlowLive{Duration: result.NewHistogram(), Steps: make([]StepLive, len(names)), Checks: run.Flow.Checks()}
	for i, n := range names {
		f.Steps[i] = StepLive{Name: n, Latency: result.NewEndpointHistogram()}
	}
	return f
}

// shape returns a FlowLive of f's steps and checks, every count at zero.
func (f *FlowLive) shape() *FlowLive {
	out := &FlowLive{Duration: result.NewHistogram(), Steps: make([]StepLive, len(f.Steps)), Checks: append([]result.FlowCheck(nil), f.Checks...)}
	for i, s := range f.Steps {
		out.Steps[i] = StepLive{Name: s.Name, Latency: result.NewEndpointHistogram()}
	}
	out.reset()
	return out
}

// copyFrom makes f's counts src's, keeping f's memory; both are of the
// same flow.
func (f *FlowLive) copyFrom(src *FlowLive) {
	f.Iterations, f.Aborted = src.Iterations, src.Aborted
	f.Duration.Reset()
	f.Duration.Merge(src.Duration)
	for i := range f.Steps {
		d, s := &f.Steps[i], &src.Steps[i]
		d.Requests, d.Errors = s.Requests, s.Errors
		d.Latency.Reset()
		d.Latency.Merge(s.Latency)
	}
	for i := range f.Checks {
		f.Checks[i].Passed, f.Checks[i].Failed = src.Checks[i].Passed, src.Checks[i].Failed
	}
}

// reset sets every count of f to zero, keeping its memory.
func (f *FlowLive) reset() {
	f.Iterations, f.Aborted = 0, 0
	f.Duration.Reset()
	for i := range f.Steps {
		st := &f.Steps[i]
		st.Requests, st.Errors = 0, 0
		st.Latency.Reset()
	}
	for i := range f.Checks {
		f.Checks[i].Passed, f.Checks[i].Failed = 0, 0
	}
}

// add adds src's counts to f's.
func (f *FlowLive) add(src *FlowLive) {
	f.Iterations += src.Iterations
	f.Aborted += src.Aborted
	f.Duration.Merge(src.Duration)
	for i := range f.Steps {
		d, s := &f.Steps[i], &src.Steps[i]
		d.Requests += s.Requests
		d.Errors += s.Errors
		d.Latency.Merge(s.Latency)
	}
	for i := range f.Checks {
		f.Checks[i].Passed += src.Checks[i].Passed
		f.Checks[i].Failed += src.Checks[i].Failed
	}
}

// flowLive fills dst (nil: a new one) with the loop's flow counts so far,
// on the loop, once a second; nil when the run is not a flow.
func (l *loop) flowLive(dst *FlowLive) *FlowLive {
	s, ok := l.sched.(*flowSchedule)
	if !ok {
		return nil
	}
	if dst == nil {
		dst = newFlowLive(s.run)
	}
	dst.reset()
	for i := range dst.Steps {
		st := &dst.Steps[i]
		if e := &l.eps; i < len(e.requests) {
			st.Requests, st.Errors = e.requests[i], e.errors[i]
			if e.latency[i] != nil {
				st.Latency.Merge(e.latency[i])
			}
		}
	}
	if !s.recorded {
		return dst // the flow's counts are the warmup's yet
	}
	if cap(s.passed) < len(dst.Checks) {
		s.passed, s.failed = make([]int64, len(dst.Checks)), make([]int64, len(dst.Checks))
	}
	dst.Iterations, dst.Aborted = s.stats.Counts(s.passed, s.failed, dst.Duration)
	for i := range dst.Checks {
		dst.Checks[i].Passed, dst.Checks[i].Failed = s.passed[i], s.failed[i]
	}
	return dst
}

// flowLives is the collector's side: each loop's latest flow counts, and
// their sum, handed to Config.Live.
type flowLives struct {
	loops []*FlowLive
	sum   *FlowLive
}

// take keeps a copy of loop's counts d (the loop reuses d).
func (fl *flowLives) take(loop, loops int, d *FlowLive) {
	if fl.loops == nil {
		fl.loops = make([]*FlowLive, loops)
		fl.sum = d.shape()
	}
	if fl.loops[loop] == nil {
		fl.loops[loop] = d.shape()
	}
	fl.loops[loop].copyFrom(d)
}

// total returns the loops' counts added up; nil before any loop's.
func (fl *flowLives) total() *FlowLive {
	if fl.sum == nil {
		return nil
	}
	fl.sum.reset()
	for _, l := range fl.loops {
		if l != nil {
			fl.sum.add(l)
		}
	}
	return fl.sum
}

// flowLiveOf is a finished run's FlowLive, from its Result: its step
// endpoints and its Flows.
func flowLiveOf(r *result.Result) *FlowLive {
	if r.Flows == nil {
		return nil
	}
	f := &FlowLive{Iterations: r.Flows.Iterations, Aborted: r.Flows.Aborted, Duration: result.NewHistogram(), Checks: r.Flows.Checks}
	if r.Flows.Duration != nil {
		f.Duration.Merge(r.Flows.Duration)
	}
	for _, s := range r.Flows.Steps {
		st := StepLive{Name: s.Name, Latency: result.NewEndpointHistogram()}
		for _, ep := range r.Endpoints {
			if ep.Name == s.Name {
				st.Requests, st.Errors = ep.Requests, ep.Errors
				if ep.Latency != nil {
					st.Latency.Merge(ep.Latency)
				}
			}
		}
		f.Steps = append(f.Steps, st)
	}
	return f
}
