package load

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/load/flow"
	"github.com/gust-http/gust/result"
)

// FlowRun, in Config.Flow, runs user journeys: virtual users running the
// flow's steps over and over, each user's state (a flow.User: variables,
// cookies, its place in the flow) living in a loop apart from the
// connections, which carry whichever user has a step to send. Each step
// is an endpoint of the Result; iterations and checks are its Flows.
type FlowRun struct {
	// Flow is the compiled flow every user runs.
	Flow *flow.Flow
	// Users is how many virtual users run the flow (0: one per
	// connection). Users share the run's Connections: one holds a
	// connection from sending a step to its answer, and one whose think
	// time ends while every connection is busy waits for the next one
	// free, first come first served, a wait its iteration's duration
	// includes. Thinking users hold none, so 100,000 users thinking 10s
	// between steps need about 10,000 requests/s of connections, not
	// 100,000 connections.
	Users int
	// IterationRate, if positive, is the open model: iterations begun
	// per second in total, each by a user free at that moment (a start
	// that finds none is dropped and counted). 0 is the closed model:
	// each user begins its next iteration as soon as one ends.
	IterationRate float64
	// Iterations, if positive, stops the run once this many iterations
	// have begun and ended; it is a bound like Requests or Duration.
	Iterations int64
	// Stages, in the closed model, ramp how many users are busy: from 0,
	// linearly to each stage's Target (users) over its Duration; users
	// past the count finish their iteration and wait. Users must be at
	// least the most the stages ask for.
	Stages []Stage
	// BodyLimit is how many bytes of each response body a user keeps
	// for its captures and checks (default 64 KiB).
	BodyLimit int

	// firstVU numbers this shard's users after the other shards' (set
	// by applyShard); begun counts iterations begun over every loop.
	firstVU int
	begun   *atomic.Int64
	model   string // the whole run's, for the Result
	users   int    // the whole run's, every shard's
}

// checkFlowRun checks a run of user journeys and gives it the run's own
// counter of iterations begun.
func (c *Config) checkFlowRun() error {
	f := c.Flow
	if len(f.Stages) > 0 && c.Duration == 0 {
		c.Duration = stagesDuration(f.Stages)
	}
	switch {
	case f.Flow == nil:
		return errors.New("a flow run needs its compiled flow")
	case c.Source != nil || c.Rate > 0 || len(c.Stages) > 0 || c.Requests > 0:
		return errors.New("a flow sends its own steps: drop --targets, --rate, --stages and -n (use --iterations and --iterations-rate)")
	case c.HTTP2 || c.AutoProtocol || isWebSocketURL(c.URL):
		return errors.New("flows speak HTTP/1.1 for now: drop --http2 and --proto")
	case c.Pipeline > 1:
		return errors.New("a user waits for each answer: drop --pipeline")
	case f.IterationRate < 0 || f.Iterations < 0 || f.BodyLimit < 0 || f.Users < 0:
		return errors.New("--vus, --iterations and --iterations-rate must not be negative")
	case len(f.Stages) > 0 && f.IterationRate > 0:
		return errors.New("stages ramp the closed model's busy users: drop the iteration rate")
	case f.Iterations == 0 && c.Duration == 0:
		return errors.New("give a duration (-d) or a number of iterations (--iterations)")
	}
	if len(f.Stages) > 0 {
		if err := checkStages(f.Stages); err != nil {
			return err
		}
	}
	run := *f
	run.begun = new(atomic.Int64)
	if run.Users == 0 {
		run.Users = c.Connections
	}
	run.users = run.Users
	switch {
	case len(f.Stages) > 0:
		run.model = "users in stages " + FormatStages(f.Stages)
	case f.IterationRate > 0:
		run.model = fmt.Sprintf("%g iterations/s on %d users", f.IterationRate, run.Users)
	default:
		run.model = fmt.Sprintf("%d users looping", run.Users)
	}
	if run.BodyLimit == 0 {
		run.BodyLimit = 64 << 10
	}
	c.Flow = &run
	return nil
}

// shareFlow gives this shard its share of the users, the iterations and
// their rate, and numbers its users after the earlier shards'.
func (c *Config) shareFlow(s result.Shard) error {
	f := c.Flow
	if f.Iterations > 0 {
		if f.Iterations < int64(s.Count) {
			return fmt.Errorf("%d iterations cannot be shared by %d shards: give at least %d (--iterations)", f.Iterations, s.Count, s.Count)
		}
		f.Iterations = s.Share(f.Iterations)
	}
	if f.IterationRate > 0 {
		f.IterationRate = s.ShareRate(f.IterationRate)
	}
	if f.Users < s.Count {
		return fmt.Errorf("%d users cannot be shared by %d shards: give at least %d (--vus)", f.Users, s.Count, s.Count)
	}
	for i := 0; i < s.Index; i++ {
		f.firstVU += int(result.Shard{Index: i, Count: s.Count}.Share(int64(f.Users)))
	}
	f.Users = int(s.Share(int64(f.Users)))
	return nil
}

// busyAt returns how many users the stages want busy elapsed after
// measurement began, over every shard; -1 without stages.
func (f *FlowRun) busyAt(elapsed int64) int {
	if len(f.Stages) == 0 {
		return -1
	}
	c := Config{Stages: f.Stages}
	return int(c.TargetRateAt(time.Duration(elapsed)) + 0.5)
}

// flowResult adds the loops' flow counts and step endpoints to res.
func (e *engine) flowResult(loops []*loop, res *result.Result) {
	f := e.cfg.Flow
	res.Endpoints = mergeEndpoints(loops, f.Flow.Steps())
	stats := make([]*flow.Stats, 0, len(loops))
	var dropped int64
	for _, l := range loops {
		if s, ok := l.sched.(*flowSchedule); ok {
			stats = append(stats, s.stats)
			dropped += s.dropped
		}
	}
	res.Flows = f.Flow.Result(stats)
	res.Flows.Dropped = dropped
	res.Flows.Model = f.model
}
