package result

import (
	"slices"
	"time"
)

// Agent describes one of the results Merge combined, so that skew between
// agents shows in the merged report.
type Agent struct {
	// Name is the part's name, as given to Merge.
	Name string
	// Shard is the share of the run the agent ran.
	Shard Shard
	// Start is when the agent began measuring.
	Start time.Time
	// Offset is Start after the earliest agent's Start.
	Offset time.Duration
	// Duration is how long the agent measured.
	Duration time.Duration
	// Requests counts the agent's complete responses.
	Requests int64
	// Errors counts the agent's failures, of every kind.
	Errors int64
	// P99us is the agent's latency p99 in microseconds; 0 without responses.
	P99us int64
	// Interrupted is set when the agent's run was stopped early.
	Interrupted bool
	// Late is set when the agent began measuring more than the allowed
	// skew after the earliest agent.
	Late bool
	// Short is set when the agent measured for more than the allowed skew
	// less than the agent that measured longest or, in the open model,
	// when the requests it sent cover that much less of its schedule (at
	// its rate) than the best agent's do.
	Short bool
}

// Flagged reports whether the agent started late, ran short or was
// interrupted.
func (a Agent) Flagged() bool { return a.Late || a.Short || a.Interrupted }

// DefaultMaxSkew is how far apart agents may start, and how much shorter
// one may run, before Merge flags it.
const DefaultMaxSkew = 100 * time.Millisecond

// agents describes each part, flagging those that started more than
// maxSkew after start or measured more than maxSkew less than the longest,
// or covered (see covered) that much less than the best.
func agents(parts []Part, start time.Time, maxSkew time.Duration) []Agent {
	var longest, best time.Duration
	for _, p := range parts {
		longest = max(longest, p.Result.Duration)
		best = max(best, covered(p.Result))
	}
	out := make([]Agent, len(parts))
	for i, p := range parts {
		r := p.Result
		a := Agent{
			Name:        p.Name,
			Shard:       r.Shard,
			Start:       r.Start,
			Offset:      r.Start.Sub(start),
			Duration:    r.Duration,
			Requests:    r.Requests,
			Errors:      r.ErrorCount(),
			Interrupted: r.Interrupted,
		}
		if r.Latency.TotalCount() > 0 {
			a.P99us = r.Latency.ValueAtQuantile(99)
		}
		a.Late = a.Offset > maxSkew
		a.Short = longest-a.Duration > maxSkew || best-covered(r) > maxSkew
		out[i] = a
	}
	slices.SortStableFunc(out, func(x, y Agent) int { return x.Shard.Index - y.Shard.Index })
	return out
}

// covered is how much of its run an agent's requests account for: its
// duration, but in the open model no more than the requests it sent (one
// lateness value each) take at its rate. An agent whose link was cut
// mid-run measures for as long as the others, its connections waiting on
// responses that never come, and sends only part of its schedule: covered
// tells it apart.
func covered(r *Result) time.Duration {
	if r.Rate <= 0 || r.Lateness == nil {
		return r.Duration
	}
	sent := float64(r.Lateness.TotalCount())
	return min(r.Duration, time.Duration(sent/r.Rate*float64(time.Second)))
}
