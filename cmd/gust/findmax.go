package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/capacity"
	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// Each step's measured time and warmup when -z and --warmup are not given.
const (
	defaultStepDuration = 5 * time.Second
	defaultStepWarmup   = time.Second
)

// findFlags are gust load's capacity search: --find-max and its bounds.
type findFlags struct {
	on        bool
	slo       []string
	start     float64
	precision float64
	maxTime   time.Duration
	rechecks  int
}

func addFindFlags(fl *pflag.FlagSet, f *findFlags) {
	fl.BoolVar(&f.on, "find-max", false, "search for the highest open-model rate that meets --slo: steps doubling from --find-start, then bisection; each step lasts -z (default 5s) after --warmup (default 1s)")
	fl.StringArrayVar(&f.slo, "slo", nil, "with --find-max, the objective a step must meet, as --threshold writes it, e.g. p99<10ms (repeatable); a step also misses when it achieves less than 95% of its rate")
	fl.Float64Var(&f.start, "find-start", capacity.DefaultStart, "with --find-max, the first step's rate in requests per second")
	fl.Float64Var(&f.precision, "find-precision", capacity.DefaultPrecision, "with --find-max, bisect until the lowest rate missed is within this fraction above the highest met")
	fl.DurationVar(&f.maxTime, "max-time", capacity.DefaultMaxTime, "with --find-max, end the search within this long (a step that would not fit is not started)")
	fl.IntVar(&f.rechecks, "find-rechecks", capacity.DefaultRechecks, "with --find-max, how much evidence a rate needs near the knee (N): a rate that missed is run until more of its runs met or N+1 missed; the two rates the search ends between are run again until all of N+2 runs agree or N+1 more of 2N+2 runs go one way (at most 4N+3 runs, the majority deciding), and a bound that flips reopens the search. With 1 a search takes about 8 steps more than one run a rate on a steady target and 16 more on a noisy knee (25 in all); --max-time still bounds it (0: one run a rate, nothing run again)")
}

// runFindMax is gust load --find-max: cfg's load stepped through rates by
// capacity.Search, each step printed on stderr, the search reported.
func runFindMax(cmd *cobra.Command, f *loadFlags, cfg load.Config) error {
	fl := cmd.Flags()
	switch {
	case f.rate > 0 || f.qps > 0 || len(cfg.Stages) > 0 || cfg.RampUp > 0:
		return errors.New("load: --find-max picks the rates itself: drop --rate, -q, --stages and --ramp-up (--find-start sets the first)")
	case f.requests > 0:
		return errors.New("load: --find-max runs each step for -z: drop -n")
	case len(f.judge.exprs) > 0:
		return errors.New("load: with --find-max, give the objective with --slo rather than --threshold")
	case f.hdrLog != "" || f.cpuProfile != "":
		return errors.New("load: --hdr-log and --cpuprofile record one run; --find-max runs many")
	case len(f.find.slo) == 0:
		return errors.New("load: --find-max needs an objective, e.g. --slo 'p99<10ms'")
	case f.find.start <= 0:
		return fmt.Errorf("load: --find-start must be positive, got %g", f.find.start)
	case f.find.precision <= 0 || f.find.precision >= 1:
		return fmt.Errorf("load: --find-precision must be above 0 and below 1, got %g", f.find.precision)
	case f.find.maxTime <= 0:
		return fmt.Errorf("load: --max-time must be positive, got %s", f.find.maxTime)
	}
	slo, err := result.ParseThresholds(f.find.slo)
	if err != nil {
		return fmt.Errorf("load: --slo: %w", err)
	}
	if err := f.judge.parse(); err != nil { // --fail-status
		return fmt.Errorf("load: %w", err)
	}
	if !fl.Changed("duration") {
		cfg.Duration = defaultStepDuration
	}
	if !fl.Changed("warmup") {
		cfg.Warmup = defaultStepWarmup
	}
	cfg.IntervalHistograms = false
	stderr := cmd.ErrOrStderr()
	search := capacity.Config{SLO: slo, FailStatus: f.judge.fail, Start: f.find.start, Precision: f.find.precision, MaxTime: f.find.maxTime, Rechecks: rechecksOf(f.find.rechecks)}
	steps := 0
	if !f.quiet {
		search.OnStep = func(s result.CapacityStep) {
			fmt.Fprintln(stderr, report.CapacityStepLine(steps, s))
			steps++
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := capacity.Search(ctx, search, func(ctx context.Context, rate float64) (*result.Result, error) {
		step := cfg
		step.Rate = rate
		return load.Run(ctx, step)
	})
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return report.WriteCapacity(cmd.OutOrStdout(), f.output, c)
}

// rechecksOf maps --find-rechecks to capacity.Config.Rechecks, where zero
// means the default and a negative number none.
func rechecksOf(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
