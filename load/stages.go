package load

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Stage is one stage of an open-model run whose rate changes
// (Config.Stages): over Duration the rate moves linearly from where the
// previous stage ended (0 before the first, as k6's ramping-arrival-rate
// starts) to Target requests per second. A stage of zero Duration is a
// step: the rate jumps to Target.
type Stage struct {
	Duration time.Duration
	Target   float64 // requests per second at the end of the stage
}

// MaxStageRate bounds a Stage's Target: beyond any generator's reach, and
// far from float64's limits in the schedule's arithmetic.
const MaxStageRate = 1e9

// ParseStages parses gust load's --stages: comma-separated DURATION:RATE
// pairs such as "30s:1000,2m:5000,30s:0", durations as time.ParseDuration
// reads them. The error is one line naming the stage at fault.
func ParseStages(s string) ([]Stage, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("no stages: give DURATION:RATE pairs such as 30s:1000,2m:5000,30s:0")
	}
	parts := strings.Split(s, ",")
	stages := make([]Stage, 0, len(parts))
	for i, part := range parts {
		part = strings.TrimSpace(part)
		d, r, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("stage %d %q: want DURATION:RATE such as 30s:1000", i+1, part)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil {
			return nil, fmt.Errorf("stage %d %q: %q is not a duration such as 30s or 2m", i+1, part, d)
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil {
			return nil, fmt.Errorf("stage %d %q: %q is not a rate in requests per second such as 1000", i+1, part, r)
		}
		stages = append(stages, Stage{Duration: dur, Target: rate})
	}
	if err := checkStages(stages); err != nil {
		return nil, err
	}
	return stages, nil
}

// checkStages reports the first stage that cannot be run, or a curve that
// lasts no time.
func checkStages(stages []Stage) error {
	var total time.Duration
	for i, st := range stages {
		switch {
		case st.Duration < 0:
			return fmt.Errorf("stage %d: duration must not be negative, got %s", i+1, st.Duration)
		case math.IsNaN(st.Target) || st.Target < 0 || st.Target > MaxStageRate:
			return fmt.Errorf("stage %d: rate must be from 0 to %g requests per second, got %g", i+1, float64(MaxStageRate), st.Target)
		case total > math.MaxInt64/2-st.Duration:
			return fmt.Errorf("stage %d: the stages last too long", i+1)
		}
		total += st.Duration
	}
	if total <= 0 {
		return errors.New("the stages last no time: give at least one stage a positive duration")
	}
	return nil
}

// FormatStages writes stages as ParseStages reads them.
func FormatStages(stages []Stage) string {
	var b strings.Builder
	for i, st := range stages {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(st.Duration.String())
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(st.Target, 'f', -1, 64))
	}
	return b.String()
}

// stagesDuration is how long the stages last in all.
func stagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, st := range stages {
		d += st.Duration
	}
	return d
}

// TargetRateAt returns the rate, in requests per second, that a run of c
// asks for elapsed after its measurement began: the stages' curve at that
// moment (0 after the last stage), the constant Rate, or 0 for the closed
// model and for a Source at its recorded times. For a sharded Config it is
// this shard's share, as Run sends it (each stage's target shared as Rate
// is, see Config.Shard). It allocates nothing, so a live metric may ask for
// it as often as it likes.
func (c *Config) TargetRateAt(elapsed time.Duration) float64 {
	share := func(r float64) float64 { return r }
	if c.Shard.Sharded() && c.Shard.Check() == nil {
		share = c.Shard.ShareRate
	}
	switch {
	case len(c.Stages) > 0:
		from := 0.0
		for _, st := range c.Stages {
			to := share(st.Target)
			if elapsed < st.Duration {
				return from + (to-from)*float64(elapsed)/float64(st.Duration)
			}
			elapsed -= st.Duration
			from = to
		}
		return 0
	case c.Speed > 0:
		return 0
	}
	return share(c.Rate)
}

// curve is the stages' rate curve prepared for the schedule: the
// cumulative count of requests N(t) and its inverse, the intended time of
// the n-th request, in closed form per segment.
type curve struct {
	segs  []segment
	total float64 // requests over the whole curve
}

// segment is one stage of the curve, its times in seconds from the start.
type segment struct {
	start, dur float64 // seconds
	from, to   float64 // requests per second at its start and end
	before     float64 // requests intended before it
	count      float64 // requests intended within it
}

func newCurve(stages []Stage) *curve {
	c := &curve{segs: make([]segment, 0, len(stages))}
	var t, from float64
	for _, st := range stages {
		d := st.Duration.Seconds()
		s := segment{start: t, dur: d, from: from, to: st.Target, before: c.total, count: (from + st.Target) / 2 * d}
		c.segs = append(c.segs, s)
		c.total += s.count
		t += d
		from = st.Target
	}
	return c
}

// count returns N(t), the requests intended in the first t seconds.
func (c *curve) count(t float64) float64 {
	for _, s := range c.segs {
		if t < s.start+s.dur {
			if t <= s.start {
				return s.before
			}
			tau := t - s.start
			return s.before + s.from*tau + (s.to-s.from)/(2*s.dur)*tau*tau
		}
	}
	return c.total
}

// timeOf returns the inverse of N: when, in ns from the start, the n-th
// request (from 0) is intended, or -1 if the curve has no n-th request.
// *seg is where to start looking: n only grows, so each call resumes
// where the last one stopped, and the search is amortized O(1).
func (c *curve) timeOf(n float64, seg *int) int64 {
	for *seg < len(c.segs) && n >= c.segs[*seg].before+c.segs[*seg].count {
		*seg++
	}
	if *seg == len(c.segs) {
		return -1
	}
	s := &c.segs[*seg]
	// Solve from*tau + a*tau^2 = m for tau, in the form that stays exact
	// when a is 0 or tiny and for a falling rate.
	m := n - s.before
	a := (s.to - s.from) / (2 * s.dur)
	den := s.from + math.Sqrt(max(0, s.from*s.from+4*a*m))
	tau := 0.0
	if den > 0 {
		tau = 2 * m / den
	}
	return int64((s.start + min(tau, s.dur)) * 1e9)
}

// inSecond returns the requests intended in second sec of the curve: the
// timeline's target rate for that second.
func (c *curve) inSecond(sec int) float64 {
	return c.count(float64(sec+1)) - c.count(float64(sec))
}

// checkStagesRun refuses what a run in stages cannot also be asked for.
func (c *Config) checkStagesRun() error {
	if err := checkStages(c.Stages); err != nil {
		return err
	}
	switch {
	case c.Duration != stagesDuration(c.Stages):
		return fmt.Errorf("the stages last %s, which is the run's duration: drop -z", stagesDuration(c.Stages))
	case c.Rate > 0:
		return errors.New("give either --stages or --rate (a constant rate is one stage, e.g. 0s:1000,1m:1000), not both")
	case c.Requests > 0:
		return errors.New("the stages set how many requests go out: drop -n")
	case c.Warmup > 0:
		return errors.New("stages ramp from 0 on their own: drop --warmup, or add a first stage")
	case c.Speed > 0 || c.Source != nil && !pickable(c.Source):
		return errors.New("stages send the run's one request or request data that does not run out (--data-loop): they cannot replay a Source")
	case c.DisableKeepAlive:
		return errors.New("stages keep a pool of connections: drop --disable-keepalive")
	case c.WebSocket.Hold:
		return errors.New("--ws-hold sends no messages: it cannot follow stages")
	}
	return nil
}

// targetInSecond is the timeline's target rate for second sec of
// measurement: the requests the stages' curve intends in it, or the
// constant rate.
func (e *engine) targetInSecond(sec int) float64 {
	switch {
	case e.curve != nil:
		return e.curve.inSecond(sec)
	case e.cfg.Speed > 0:
		return 0 // recorded times: no rate was asked for
	}
	return e.cfg.Rate
}
