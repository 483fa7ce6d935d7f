package capacity

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/gust-http/gust/result"
)

// Defaults of Config's zero values.
const (
	DefaultStart     = 1000            // requests per second of the first step
	DefaultMaxTime   = 2 * time.Minute // the search's time budget
	DefaultShortfall = 0.05            // a step achieving less than 95% of its rate fails
	DefaultPrecision = 0.02            // bisect until the bounds are 2% apart
	DefaultRechecks  = 1               // evidence a rate needs: see Config.Rechecks
)

// StepFunc runs one open-model step at rate requests per second (with its
// own warmup) and returns what it measured. A step cut short by ctx
// returns a Result with Interrupted set, or an error.
type StepFunc func(ctx context.Context, rate float64) (*result.Result, error)

// Config is a search: the objective and its bounds. Zero values take the
// defaults above.
type Config struct {
	// SLO is the objective every step is judged by, e.g. p99<10ms; an
	// error_rate in it bounds the errors. It must not be empty.
	SLO []result.Threshold
	// FailStatus are statuses error_rate counts as failed.
	FailStatus result.StatusSet
	// Start is the first step's rate; the rate doubles from it until a
	// step misses the objective (or halves, when the first misses).
	Start float64
	// MaxTime bounds the search: a step that would not end within it is
	// not started, and one still running at MaxTime is cut short and
	// dropped.
	MaxTime time.Duration
	// Shortfall is how far below its rate, as a fraction, a step's
	// achieved rate may fall and still meet the objective.
	Shortfall float64
	// Precision ends the bisection when the rate missed is within this
	// fraction above the rate met.
	Precision float64
	// MinRate is the lowest rate the search tries going down (default 1).
	MinRate float64
	// Rechecks sets how much evidence a rate needs, so that one step's
	// p99 near the knee does not decide the answer: a transient miss (a
	// collector's pause, a busy neighbour) would halve it, a lucky pass
	// raise it. While the search moves, a rate that met in its first run
	// is met, and one that missed is run again until more of its runs
	// met than missed (met) or Rechecks+1 of them missed (missed). Before
	// the search ends, the two rates it ends between (the highest met and
	// the lowest missed above it) are settled: each is run again until
	// all of at least Rechecks+2 runs agree, or it has at least
	// 2*Rechecks+2 runs and Rechecks+1 more of them one way than the
	// other (with one recheck: three of three, or three of four agree),
	// or it has 4*Rechecks+3 runs and its majority decides. A bound that
	// flips moves the bracket and the search goes on; rates whose verdicts
	// cross (one met above one missed) are settled the same way, and
	// when they still cross the lower missed rate bounds the answer.
	// Zero means DefaultRechecks; negative, one run a rate and nothing
	// settled, the plain bisection.
	Rechecks int
	// OnStep, if set, is called after each step.
	OnStep func(result.CapacityStep)

	clock func() time.Time // time.Now; tests give simulated steps a duration
}

func (c *Config) defaults() error {
	if len(c.SLO) == 0 {
		return errors.New("capacity: no objective: give at least one SLO, e.g. p99<10ms")
	}
	if c.Start <= 0 {
		c.Start = DefaultStart
	}
	if c.MaxTime <= 0 {
		c.MaxTime = DefaultMaxTime
	}
	if c.Shortfall <= 0 {
		c.Shortfall = DefaultShortfall
	}
	if c.Precision <= 0 {
		c.Precision = DefaultPrecision
	}
	if c.MinRate <= 0 {
		c.MinRate = 1
	}
	if c.Rechecks == 0 {
		c.Rechecks = DefaultRechecks
	}
	c.Rechecks = max(c.Rechecks, 0)
	if c.clock == nil {
		c.clock = time.Now
	}
	return nil
}

// maxRuns is the most runs a rate gets: an odd number, so that its
// majority always decides.
func (c *Config) maxRuns() int { return 4*c.Rechecks + 3 }

// settled reports whether t is evidence enough for a rate the search
// would end on (see Rechecks).
func (c *Config) settled(t *tally) bool {
	if c.Rechecks == 0 {
		return true
	}
	n, lead := t.runs(), max(t.met-t.missed, t.missed-t.met)
	return n >= c.maxRuns() || n >= 2*c.Rechecks+2 && lead >= c.Rechecks+1 || n >= c.Rechecks+2 && lead == n
}

// tally counts a rate's runs that met and missed the objective.
type tally struct{ met, missed int }

func (t *tally) runs() int { return t.met + t.missed }

// ledger holds every rate run so far and its tally; a rate is met when
// more of its runs met than missed, missed when more missed.
type ledger map[float64]*tally

// bounds returns the lowest rate missed (hi, 0 when none) and the highest
// met below it (lo, 0 when none).
func (b ledger) bounds() (lo, hi float64) {
	for r, t := range b {
		if t.missed > t.met && (hi == 0 || r < hi) {
			hi = r
		}
	}
	for r, t := range b {
		if t.met > t.missed && (hi == 0 || r < hi) && r > lo {
			lo = r
		}
	}
	return lo, hi
}

// rates returns the rates run, lowest first.
func (b ledger) rates() []float64 {
	rs := make([]float64, 0, len(b))
	for r := range b {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// Search runs steps through run until it has bracketed the capacity within
// Precision with both bounds settled (see Config.Rechecks), the time budget
// ends, no rate meets the objective, or ctx is done, and returns every step
// and the highest rate met below the lowest missed. An error of run ends
// the search with that error.
func Search(ctx context.Context, cfg Config, run StepFunc) (*result.Capacity, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	begin := cfg.clock()
	since := func() time.Duration { return cfg.clock().Sub(begin) }
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxTime)
	defer cancel()
	c := &result.Capacity{SLO: cfg.SLO}
	book := ledger{}
	var longest time.Duration // the longest step so far, to budget the next
	for {
		rate, stop := next(cfg, book)
		if stop != "" {
			c.Stop = stop
			break
		}
		if since()+longest > cfg.MaxTime {
			c.Stop = result.StopMaxTime
			break
		}
		stepStart := cfg.clock()
		r, err := run(ctx, rate)
		longest = max(longest, cfg.clock().Sub(stepStart))
		if err == nil && r == nil {
			err = errors.New("capacity: a step returned no result")
		}
		if ctx.Err() != nil || (err == nil && r.Interrupted) {
			c.Stop = result.StopInterrupted
			if since() >= cfg.MaxTime {
				c.Stop = result.StopMaxTime
			}
			break // a step cut short is not judged
		}
		if err != nil {
			return nil, err
		}
		step := judge(cfg, rate, r)
		t := book[rate]
		if t == nil {
			t = &tally{}
			book[rate] = t
		}
		step.Rerun = t.runs() > 0
		if step.OK {
			t.met++
		} else {
			t.missed++
		}
		c.Steps = append(c.Steps, step)
		if cfg.OnStep != nil {
			cfg.OnStep(step)
		}
	}
	c.MaxRate, _ = book.bounds()
	c.Elapsed = since()
	return c, nil
}

// next returns the next rate to run given every run so far, or why the
// search is over.
func next(cfg Config, book ledger) (float64, string) {
	rates := book.rates()
	for _, r := range rates { // a tie is run again at once
		if t := book[r]; t.met == t.missed && t.runs() < cfg.maxRuns() {
			return r, ""
		}
	}
	lo, hi := book.bounds()
	if hi > 0 { // a miss is run again before the bounds move
		if t := book[hi]; t.missed < cfg.Rechecks+1 && t.runs() < cfg.maxRuns() {
			return hi, ""
		}
		for _, r := range rates { // a rate met above one missed: settle both
			if t := book[r]; r > hi && t.met > t.missed {
				if !cfg.settled(book[hi]) {
					return hi, ""
				}
				if !cfg.settled(t) {
					return r, ""
				}
			}
		}
	}
	switch {
	case lo == 0 && hi == 0:
		return cfg.Start, ""
	case hi == 0: // still rising
		return lo * 2, ""
	case lo == 0: // the first rates missed: go down
		r := math.Floor(hi / 2)
		if r < cfg.MinRate {
			return 0, result.StopNoRate
		}
		return r, ""
	}
	// When the budget runs short this goes on bisecting rather than
	// settling a wide bracket: in simulation, a rate bisected closer came
	// nearer the capacity than a settled bound further under it.
	if mid := math.Round((lo + hi) / 2); hi-lo > cfg.Precision*lo && mid > lo && mid < hi {
		return mid, ""
	}
	// Converged: the answer's two bounds are settled before it is given.
	if !cfg.settled(book[lo]) {
		return lo, ""
	}
	if !cfg.settled(book[hi]) {
		return hi, ""
	}
	return 0, result.StopConverged
}

// judge decides whether a step met the objective.
func judge(cfg Config, rate float64, r *result.Result) result.CapacityStep {
	s := result.CapacityStep{Rate: rate, Result: r, Verdicts: result.Judge(r, cfg.SLO, cfg.FailStatus)}
	s.Short = r.RPS() < rate*(1-cfg.Shortfall)
	s.OK = !s.Short && result.Passed(s.Verdicts)
	return s
}
