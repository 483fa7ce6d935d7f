package capacity

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/gust-http/gust/result"
)

// Defaults of Config's zero values.
const (
	DefaultStart     = 1000            // requests per second of the first step
	DefaultMaxTime   = 2 * time.Minute // the search's time budget
	DefaultShortfall = 0.05            // a step achieving less than 95% of its rate fails
	DefaultPrecision = 0.02            // bisect until the bounds are 2% apart
	DefaultRechecks  = 1               // a rate that missed is run once more
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
	// Rechecks is how many more times a rate that missed the objective
	// may be run before it counts as missed, so that one transient miss
	// (a collector's pause, a busy neighbour) does not halve the answer:
	// a rate that met the objective in its first run is met; one that
	// missed is run again until more of its runs met than missed (met)
	// or Rechecks+1 of them missed (missed). Zero means DefaultRechecks;
	// negative, one run a rate.
	Rechecks int
	// OnStep, if set, is called after each step.
	OnStep func(result.CapacityStep)
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
	return nil
}

// Search runs steps through run until it has bracketed the capacity within
// Precision, the time budget ends, no rate meets the objective, or ctx is
// done, and returns every step and the highest rate that met the
// objective. An error of run ends the search with that error.
func Search(ctx context.Context, cfg Config, run StepFunc) (*result.Capacity, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	begin := time.Now()
	ctx, cancel := context.WithDeadline(ctx, begin.Add(cfg.MaxTime))
	defer cancel()
	c := &result.Capacity{SLO: cfg.SLO}
	var lo, hi float64        // the highest rate met, the lowest missed; 0: none yet
	var longest time.Duration // the longest step so far, to budget the next
	for {
		rate, stop := next(cfg, lo, hi)
		if stop != "" {
			c.Stop = stop
			break
		}
		met, missed := 0, 0
		for met <= missed && missed <= cfg.Rechecks {
			if time.Since(begin)+longest > cfg.MaxTime {
				c.Stop = result.StopMaxTime
				break
			}
			stepStart := time.Now()
			r, err := run(ctx, rate)
			longest = max(longest, time.Since(stepStart))
			if err == nil && r == nil {
				err = errors.New("capacity: a step returned no result")
			}
			if ctx.Err() != nil || (err == nil && r.Interrupted) {
				c.Stop = result.StopInterrupted
				if time.Since(begin) >= cfg.MaxTime {
					c.Stop = result.StopMaxTime
				}
				break
			}
			if err != nil {
				return nil, err
			}
			step := judge(cfg, rate, r)
			step.Rerun = met+missed > 0
			c.Steps = append(c.Steps, step)
			if cfg.OnStep != nil {
				cfg.OnStep(step)
			}
			if step.OK {
				met++
			} else {
				missed++
			}
		}
		if c.Stop != "" {
			break // a rate whose runs were cut short is not judged
		}
		if met > missed {
			lo = rate
		} else {
			hi = rate
		}
	}
	c.MaxRate = lo
	c.Elapsed = time.Since(begin)
	return c, nil
}

// next returns the next rate to try given the highest rate met (lo) and
// the lowest missed (hi), or why the search is over.
func next(cfg Config, lo, hi float64) (float64, string) {
	switch {
	case lo == 0 && hi == 0:
		return cfg.Start, ""
	case hi == 0: // still rising
		return lo * 2, ""
	case lo == 0: // the first step missed: go down
		r := math.Floor(hi / 2)
		if r < cfg.MinRate {
			return 0, result.StopNoRate
		}
		return r, ""
	case hi-lo <= cfg.Precision*lo:
		return 0, result.StopConverged
	}
	mid := math.Round((lo + hi) / 2)
	if mid <= lo || mid >= hi {
		return 0, result.StopConverged
	}
	return mid, ""
}

// judge decides whether a step met the objective.
func judge(cfg Config, rate float64, r *result.Result) result.CapacityStep {
	s := result.CapacityStep{Rate: rate, Result: r, Verdicts: result.Judge(r, cfg.SLO, cfg.FailStatus)}
	s.Short = r.RPS() < rate*(1-cfg.Shortfall)
	s.OK = !s.Short && result.Passed(s.Verdicts)
	return s
}
