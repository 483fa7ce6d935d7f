package result

import "github.com/HdrHistogram/hdrhistogram-go"

// Flows is what a run of user journeys (gust load --flow) measured beyond
// its steps' endpoints: iterations, their durations and the checks.
type Flows struct {
	// Model says how iterations were begun, over the whole run (every
	// shard's): "50 users looping", "200 iterations/s on 50 users",
	// "users in stages 30s:50,1m:0".
	Model string
	// Iterations counts the iterations users finished, aborted ones too.
	Iterations int64
	// Aborted counts the iterations a failed check with abort, or a
	// failed request, ended early.
	Aborted int64
	// Dropped counts iterations the open model (--iterations-rate) did
	// not begin: no user was free when they came due.
	Dropped int64
	// Duration holds one value per iteration, in microseconds, from
	// NewHistogram: from its start (its intended start in the open
	// model) to the end of its last step.
	Duration *hdrhistogram.Histogram
	// Checks counts each check's outcomes, by step and check, in the
	// flow's order.
	Checks []FlowCheck
	// Steps counts each step's answers by status code, in the flow's
	// order (failed requests are its endpoint's errors).
	Steps []FlowStep
}

// FlowStep is one step's answers by status code.
type FlowStep struct {
	Name   string
	Status map[int]int64
}

// FlowCheck is one check of one step and how often it passed and failed.
type FlowCheck struct {
	Step   string // the step's name
	Check  string // the check's kind, such as "status" or "json a.b"
	Passed int64
	Failed int64
}

// ChecksPassed returns how many checks passed, over every step.
func (f *Flows) ChecksPassed() int64 {
	var n int64
	for _, c := range f.Checks {
		n += c.Passed
	}
	return n
}

// ChecksFailed returns how many checks failed, over every step.
func (f *Flows) ChecksFailed() int64 {
	var n int64
	for _, c := range f.Checks {
		n += c.Failed
	}
	return n
}

// Add adds o's counts to f exactly: checks matched by step and check
// (those f lacks appended in o's order), histograms merged.
func (f *Flows) Add(o *Flows) {
	if o == nil {
		return
	}
	if f.Model == "" {
		f.Model = o.Model
	}
	f.Iterations += o.Iterations
	f.Aborted += o.Aborted
	f.Dropped += o.Dropped
	if o.Duration != nil {
		if f.Duration == nil {
			f.Duration = NewHistogram()
		}
		f.Duration.Merge(o.Duration)
	}
	for _, s := range o.Steps {
		i := 0
		for i < len(f.Steps) && f.Steps[i].Name != s.Name {
			i++
		}
		if i == len(f.Steps) {
			f.Steps = append(f.Steps, FlowStep{Name: s.Name, Status: map[int]int64{}})
		}
		for code, n := range s.Status {
			f.Steps[i].Status[code] += n
		}
	}
	for _, c := range o.Checks {
		i := 0
		for i < len(f.Checks) && (f.Checks[i].Step != c.Step || f.Checks[i].Check != c.Check) {
			i++
		}
		if i == len(f.Checks) {
			f.Checks = append(f.Checks, FlowCheck{Step: c.Step, Check: c.Check})
		}
		f.Checks[i].Passed += c.Passed
		f.Checks[i].Failed += c.Failed
	}
}

// mergeFlows sums the parts' flows, nil when none has any.
func mergeFlows(parts []Part) *Flows {
	var out *Flows
	for _, p := range parts {
		if p.Result.Flows == nil {
			continue
		}
		if out == nil {
			out = &Flows{Duration: NewHistogram()}
		}
		out.Add(p.Result.Flows)
	}
	return out
}
