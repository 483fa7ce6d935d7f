package result

import "time"

// Capacity is what a capacity search found (gust load --find-max): the
// highest rate that met the objective, and every step it ran to find it.
type Capacity struct {
	// SLO is the objective each step was judged by.
	SLO []Threshold
	// MaxRate is the highest rate, in requests per second, whose step met
	// the objective; 0 when none did.
	MaxRate float64
	// Steps holds every step in the order run.
	Steps []CapacityStep
	// Stop says why the search ended (see the Stop constants).
	Stop string
	// Elapsed is how long the search took.
	Elapsed time.Duration
}

// Why a capacity search ended: Capacity.Stop.
const (
	StopConverged   = "converged"   // the rates that met and missed are close enough
	StopMaxTime     = "max-time"    // the time budget would not fit another step
	StopNoRate      = "no rate met" // even the lowest rate tried missed the objective
	StopInterrupted = "interrupted" // the context was cancelled
)

// CapacityStep is one open-model run of a capacity search at a rate.
type CapacityStep struct {
	// Rate is the requests per second asked for.
	Rate float64
	// Result is what the step measured (after its warmup).
	Result *Result
	// Verdicts judge Result by the SLO.
	Verdicts []Verdict
	// Short is true when the achieved rate (Result.RPS) fell short of
	// Rate by more than the search allows.
	Short bool
	// OK is true when the step met the objective: every verdict passed
	// and the rate was achieved.
	OK bool
	// Rerun is true for a run of a rate already run: a miss rechecked to
	// tell a transient miss from a lasting one, or a final bound settled.
	Rerun bool
}
