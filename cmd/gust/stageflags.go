package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
)

// stageFlags are gust load's flags for load that changes over the run:
// the open model's rate in stages (--stages, with --max-connections to
// grow the pool) and the closed model's --ramp-up.
type stageFlags struct {
	stages   string
	maxConns int
	rampUp   time.Duration
}

func addStageFlags(fl *pflag.FlagSet, f *stageFlags) {
	fl.StringVar(&f.stages, "stages", "", "open model with a changing rate: DURATION:RATE stages, e.g. 30s:1000,2m:5000,30s:0; from 0 the rate moves linearly to each stage's rate over its duration; the run lasts their sum")
	fl.IntVar(&f.maxConns, "max-connections", 0, "with --stages, grow the pool of -c connections up to this many when requests would start late (0: keep -c)")
	fl.DurationVar(&f.rampUp, "ramp-up", 0, "closed model: open the -c connections evenly over this long, measured from the start (--connect-rate then paces only reconnects)")
}

// apply puts the flags into cfg, refusing what the rest of the command
// line says against them; f is gust load's whole command line.
func (s *stageFlags) apply(cfg *load.Config, f *loadFlags) error {
	switch {
	case s.maxConns < 0:
		return fmt.Errorf("--max-connections must not be negative, got %d", s.maxConns)
	case s.rampUp < 0:
		return fmt.Errorf("--ramp-up must not be negative, got %s", s.rampUp)
	case s.maxConns > 0 && s.stages == "":
		return errors.New("--max-connections grows the pool of a --stages run: give --stages, or size -c")
	case s.rampUp > 0 && s.stages != "":
		return errors.New("--ramp-up is for the closed model: --stages ramp the rate themselves")
	case s.rampUp > 0 && (f.rate > 0 || f.qps > 0):
		return errors.New("--ramp-up is for the closed model: to ramp a rate, use --stages")
	}
	cfg.RampUp = s.rampUp
	if s.stages == "" {
		return nil
	}
	switch {
	case f.duration != 0:
		return errors.New("--stages set the run's duration (their sum): drop -z")
	case f.requests != 0:
		return errors.New("--stages set how many requests go out: drop -n")
	case f.rate > 0 || f.qps > 0:
		return errors.New("give either --stages or --rate/-q, not both (a constant rate is 0s:R,DURATION:R)")
	}
	stages, err := load.ParseStages(s.stages)
	if err != nil {
		return fmt.Errorf("--stages: %w", err)
	}
	cfg.Stages = stages
	cfg.MaxConnections = s.maxConns
	return nil
}
