package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/capacity"
	"github.com/gust-http/gust/result"
)

// CapacitySearch makes a scenario a capacity cell: instead of saturating
// the server (the closed model), the gust loader searches for the highest
// open-model rate it sustains under an objective (gust load --find-max),
// each step lasting the scenario's duration after its warmup. The cell's
// req/s is what the step at that rate achieved; its latency and server
// samples are that step's.
type CapacitySearch struct {
	// SLO is the objective, as gust load --slo writes it, e.g. ["p99<10ms"].
	SLO []string `json:"slo"`
	// Start is the first step's rate (default 1000 req/s).
	Start float64 `json:"start,omitempty"`
	// MaxTime bounds the search (default 2m).
	MaxTime Duration `json:"max_time,omitempty"`
	// Precision ends the bisection when the rate missed is within this
	// fraction above the rate met (default 0.02).
	Precision float64 `json:"precision,omitempty"`
}

// label names the objective in groups and reports: "p99<10ms".
func (c *CapacitySearch) label() string { return strings.Join(c.SLO, ", ") }

func (c *CapacitySearch) validate(name string) error {
	if len(c.SLO) == 0 {
		return fmt.Errorf("scenario %q: a capacity search needs an slo, e.g. [\"p99<10ms\"]", name)
	}
	if _, err := result.ParseThresholds(c.SLO); err != nil {
		return fmt.Errorf("scenario %q: capacity: %w", name, err)
	}
	if c.Start < 0 || c.MaxTime < 0 || c.Precision < 0 || c.Precision >= 1 {
		return fmt.Errorf("scenario %q: capacity: start and max_time must not be negative, precision must be from 0 to below 1", name)
	}
	return nil
}

// loadCapacity runs sc's capacity search against url, each step a
// load.Run of cfg at its rate, and describes the step at the highest rate
// that met the objective.
func (g GustLoader) loadCapacity(ctx context.Context, cfg load.Config, sc Scenario) (*LoadResult, error) {
	slo, err := result.ParseThresholds(sc.Capacity.SLO)
	if err != nil {
		return nil, err
	}
	c, err := capacity.Search(ctx, capacity.Config{
		SLO: slo, Start: sc.Capacity.Start, MaxTime: time.Duration(sc.Capacity.MaxTime), Precision: sc.Capacity.Precision,
	}, func(ctx context.Context, rate float64) (*result.Result, error) {
		step := cfg
		step.Rate = rate
		return load.Run(ctx, step)
	})
	if err != nil {
		return nil, err
	}
	var best *result.CapacityStep
	for i, s := range c.Steps {
		if s.OK && s.Rate == c.MaxRate {
			best = &c.Steps[i]
		}
	}
	if best == nil {
		return nil, errors.New("capacity: no rate met " + sc.Capacity.label() + " (" + c.Stop + ")")
	}
	lr := gustResult(best.Result)
	lr.CapacityRate, lr.CapacitySteps = c.MaxRate, len(c.Steps)
	return lr, nil
}
