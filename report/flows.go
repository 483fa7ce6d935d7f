package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gust-http/gust/result"
)

// FlowsStats is the flows section of a run of user journeys (gust load
// --flow): iterations, their durations, and every check's outcomes by
// step. Its counts and histogram merge exactly across agents.
type FlowsStats struct {
	// Model says how iterations were begun: "50 users looping", "200
	// iterations/s on 50 users", "users in stages 30s:50,1m:0".
	Model string `json:"model"`
	// Iterations counts finished iterations, aborted ones included.
	Iterations int64 `json:"iterations"`
	// Aborted counts iterations a failed check (abort) or request ended.
	Aborted int64 `json:"aborted"`
	// Dropped counts iterations the open model could not begin: no user
	// was free.
	Dropped int64 `json:"dropped"`
	// ChecksPassed and ChecksFailed count checks over every step.
	ChecksPassed int64 `json:"checks_passed"`
	ChecksFailed int64 `json:"checks_failed"`
	// Duration describes the iterations' durations in microseconds.
	Duration Stats `json:"iteration_duration_us"`
	// DurationHdr holds their histogram, encoded as LatencyHdr is.
	DurationHdr string `json:"iteration_duration_hdr"`
	// Checks holds each check of each step, in the flow's order.
	Checks []FlowCheckStats `json:"checks"`
	// Steps holds each step's answers by status code, in the flow's
	// order; a step's latency and errors are its endpoint's.
	Steps []FlowStepStats `json:"steps"`
}

// FlowStepStats is one step's answers by status code.
type FlowStepStats struct {
	Step   string           `json:"step"`
	Status map[string]int64 `json:"status"`
}

// FlowCheckStats is one check of one step.
type FlowCheckStats struct {
	Step   string `json:"step"`
	Check  string `json:"check"`
	Passed int64  `json:"passed"`
	Failed int64  `json:"failed"`
}

// newFlowsStats summarizes f; nil for a run without flows.
func newFlowsStats(f *result.Flows) *FlowsStats {
	if f == nil {
		return nil
	}
	h := orEmpty(f.Duration)
	s := &FlowsStats{Model: f.Model, Iterations: f.Iterations, Aborted: f.Aborted, Dropped: f.Dropped,
		ChecksPassed: f.ChecksPassed(), ChecksFailed: f.ChecksFailed(),
		Duration: newStats(h), DurationHdr: encode(h), Checks: []FlowCheckStats{}}
	for _, c := range f.Checks {
		s.Checks = append(s.Checks, FlowCheckStats{Step: c.Step, Check: c.Check, Passed: c.Passed, Failed: c.Failed})
	}
	s.Steps = []FlowStepStats{}
	for _, st := range f.Steps {
		row := FlowStepStats{Step: st.Name, Status: map[string]int64{}}
		for code, n := range st.Status {
			row.Status[strconv.Itoa(code)] = n
		}
		s.Steps = append(s.Steps, row)
	}
	return s
}

// flowsResult rebuilds result.Flows from its summary, for gust merge.
func flowsResult(s *FlowsStats) (*result.Flows, error) {
	if s == nil {
		return nil, nil
	}
	h, err := decodeHistogram("flows iteration_duration_hdr", s.DurationHdr, nil)
	if err != nil {
		return nil, err
	}
	if h.TotalCount() != s.Iterations {
		return nil, fmt.Errorf("flows: iteration_duration_hdr holds %d values but iterations is %d: the result was changed or cut", h.TotalCount(), s.Iterations)
	}
	f := &result.Flows{Model: s.Model, Iterations: s.Iterations, Aborted: s.Aborted, Dropped: s.Dropped, Duration: h}
	for _, c := range s.Checks {
		f.Checks = append(f.Checks, result.FlowCheck{Step: c.Step, Check: c.Check, Passed: c.Passed, Failed: c.Failed})
	}
	for _, st := range s.Steps {
		step := result.FlowStep{Name: st.Step, Status: map[int]int64{}}
		for code, n := range st.Status {
			c, err := strconv.Atoi(code)
			if err != nil || c < 100 || c > 999 {
				return nil, fmt.Errorf("flows: step %q: %q is not a status code", st.Step, code)
			}
			step.Status[c] = n
		}
		f.Steps = append(f.Steps, step)
	}
	if f.ChecksPassed() != s.ChecksPassed || f.ChecksFailed() != s.ChecksFailed {
		return nil, fmt.Errorf("flows: checks_passed and checks_failed differ from the checks listed: the result was changed")
	}
	return f, nil
}

// writeFlows writes the text report's flows section: iterations, their
// durations, each step's status codes and each check.
func writeFlows(b *strings.Builder, f *result.Flows) {
	line(b, "Iterations", iterationsText(f))
	if h := orEmpty(f.Duration); h.TotalCount() > 0 {
		line(b, "Iteration", fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s",
			formatMicros(float64(h.ValueAtQuantile(50))), formatMicros(float64(h.ValueAtQuantile(90))),
			formatMicros(float64(h.ValueAtQuantile(99))), formatMicros(float64(h.Max()))))
	}
	label := "Steps"
	for _, st := range f.Steps {
		line(b, label, fmt.Sprintf("%-24s %s", st.Name, statusText(st.Status)))
		label = ""
	}
	line(b, "Checks", checksText(f))
	for _, c := range f.Checks {
		mark := "ok"
		if c.Failed > 0 {
			mark = "FAILED " + formatCount(c.Failed)
		}
		line(b, "", fmt.Sprintf("%-24s %-24s %s passed  %s", c.Step, c.Check, formatCount(c.Passed), mark))
	}
}

// iterationsText says how many iterations ran, and how many of them
// were aborted or dropped.
func iterationsText(f *result.Flows) string {
	its := plural(f.Iterations, "iteration", "iterations")
	if f.Aborted > 0 {
		its += ", " + formatCount(f.Aborted) + " aborted"
	}
	if f.Dropped > 0 {
		its += ", " + formatCount(f.Dropped) + " dropped (no user free)"
	}
	return its
}

// statusText is a step's answers by status code, lowest first.
func statusText(status map[int]int64) string {
	codes := make([]int, 0, len(status))
	for code := range status {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	parts := []string{}
	for _, code := range codes {
		parts = append(parts, fmt.Sprintf("%d: %s", code, formatCount(status[code])))
	}
	if len(parts) == 0 {
		return "no answers"
	}
	return strings.Join(parts, ", ")
}

// checksText is the checks passed and failed over every step.
func checksText(f *result.Flows) string {
	passed, failed := f.ChecksPassed(), f.ChecksFailed()
	return fmt.Sprintf("%s passed, %s failed (%s passed)", formatCount(passed), formatCount(failed), percent(passed, passed+failed))
}
