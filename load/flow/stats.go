package flow

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// Stats is one loop's flow counters: iterations, their durations and
// each check's outcomes. Only its loop writes it. A nil *Stats counts
// nothing (before measurement starts).
type Stats struct {
	iterations int64
	aborted    int64
	duration   *hdrhistogram.Histogram
	passed     []int64 // by check id
	failed     []int64
	status     []map[int]int64 // by step: answers by status code
}

// NewStats returns empty counters for f.
func (f *Flow) NewStats() *Stats {
	s := &Stats{duration: result.NewHistogram(), passed: make([]int64, len(f.checks)), failed: make([]int64, len(f.checks)),
		status: make([]map[int]int64, len(f.steps))}
	for i := range s.status {
		s.status[i] = make(map[int]int64, 4)
	}
	return s
}

// Reset forgets every count, keeping the memory.
func (s *Stats) Reset() {
	s.iterations, s.aborted = 0, 0
	s.duration.Reset()
	clear(s.passed)
	clear(s.failed)
	for _, m := range s.status {
		clear(m)
	}
}

func (s *Stats) answered(step, status int) {
	if s != nil {
		s.status[step][status]++
	}
}

func (s *Stats) iteration(ns int64, aborted bool) {
	if s == nil {
		return
	}
	s.iterations++
	if aborted {
		s.aborted++
	}
	us := max(ns/1000, result.HistMin)
	s.duration.RecordValue(min(us, result.HistMax))
}

func (s *Stats) check(id int, ok bool) {
	if s == nil {
		return
	}
	if ok {
		s.passed[id]++
	} else {
		s.failed[id]++
	}
}

// Result adds up the loops' counters into the run's result.Flows.
func (f *Flow) Result(loops []*Stats) *result.Flows {
	out := &result.Flows{Duration: result.NewHistogram(), Checks: f.Checks()}
	for _, s := range f.steps {
		out.Steps = append(out.Steps, result.FlowStep{Name: s.name, Status: map[int]int64{}})
	}
	for _, s := range loops {
		for i, m := range s.status {
			for code, n := range m {
				out.Steps[i].Status[code] += n
			}
		}
		out.Iterations += s.iterations
		out.Aborted += s.aborted
		out.Duration.Merge(s.duration)
		for i := range out.Checks {
			out.Checks[i].Passed += s.passed[i]
			out.Checks[i].Failed += s.failed[i]
		}
	}
	return out
}

// Counts copies s's counts for a watcher of the run: each check's
// passes and failures by check id into passed and failed (as long as
// the flow's checks), the iterations' durations into duration (added to
// what it holds), and returns the iterations finished and aborted.
func (s *Stats) Counts(passed, failed []int64, duration *hdrhistogram.Histogram) (iterations, aborted int64) {
	copy(passed, s.passed)
	copy(failed, s.failed)
	duration.Merge(s.duration)
	return s.iterations, s.aborted
}

// Checks returns the flow's checks by id, each its step's name and its
// own, counts at zero.
func (f *Flow) Checks() []result.FlowCheck {
	if len(f.checks) == 0 {
		return nil
	}
	out := make([]result.FlowCheck, len(f.checks))
	for i, c := range f.checks {
		out[i] = result.FlowCheck{Step: c.step, Check: c.check}
	}
	return out
}
