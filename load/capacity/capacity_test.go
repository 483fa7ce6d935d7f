package capacity

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// fakeTarget answers within 1 ms up to capacity requests per second and
// in 100 ms above it; over limit it also achieves only limit.
type fakeTarget struct {
	capacity, limit float64
	errorsAt        float64 // above this rate, 1% of requests fail
	rates           []float64
	sleep           time.Duration
}

func (f *fakeTarget) run(ctx context.Context, rate float64) (*result.Result, error) {
	f.rates = append(f.rates, rate)
	if f.sleep > 0 {
		select {
		case <-time.After(f.sleep):
		case <-ctx.Done():
			return &result.Result{Interrupted: true}, nil
		}
	}
	achieved := rate
	if f.limit > 0 {
		achieved = min(rate, f.limit)
	}
	r := &result.Result{Rate: rate, Duration: time.Second, Latency: result.NewHistogram(), Lateness: result.NewHistogram(),
		Status: map[int]int64{}, Errors: map[result.ErrorKind]int64{}}
	n := int64(achieved)
	latency := int64(1000)
	if rate > f.capacity {
		latency = 100_000
	}
	r.Latency.RecordValues(latency, n)
	r.Requests = n
	r.Status[200] = n
	if f.errorsAt > 0 && rate > f.errorsAt {
		r.Errors[result.ErrReset] = n / 100
	}
	return r, nil
}

func slo(t *testing.T, exprs ...string) []result.Threshold {
	t.Helper()
	ts, err := result.ParseThresholds(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestSearchFindsTheCapacity(t *testing.T) {
	tests := []struct {
		name   string
		target fakeTarget
		cfg    Config
		want   float64 // the capacity to find
		stop   string
	}{
		{"rising then bisecting", fakeTarget{capacity: 37_000}, Config{Start: 1000}, 37_000, result.StopConverged},
		{"the first step misses: going down", fakeTarget{capacity: 300}, Config{Start: 1000}, 300, result.StopConverged},
		// 5% short is allowed: 5,000 req/s achieved meets 5,263.
		{"the achieved rate falls short", fakeTarget{capacity: 1e9, limit: 5000}, Config{Start: 1000}, 5263, result.StopConverged},
		{"errors over the SLO's error_rate", fakeTarget{capacity: 1e9, errorsAt: 2500}, Config{Start: 1000, SLO: slo(t, "p99<10ms", "error_rate<0.5%")}, 2500, result.StopConverged},
		{"a low capacity, found within 5%", fakeTarget{capacity: 10}, Config{Start: 1000, Precision: 0.05}, 10, result.StopConverged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cfg.SLO == nil {
				tt.cfg.SLO = slo(t, "p99<10ms")
			}
			var seen int
			tt.cfg.OnStep = func(result.CapacityStep) { seen++ }
			c, err := Search(context.Background(), tt.cfg, tt.target.run)
			if err != nil {
				t.Fatal(err)
			}
			if c.Stop != tt.stop {
				t.Errorf("stopped: %q, want %q", c.Stop, tt.stop)
			}
			precision := tt.cfg.Precision
			if precision == 0 {
				precision = DefaultPrecision
			}
			// The rate met is at most the capacity, and within the precision of it.
			if c.MaxRate > tt.want || c.MaxRate < tt.want*(1-precision)-1 {
				t.Errorf("max rate %g, want within %g%% under %g; rates tried %v", c.MaxRate, 100*precision, tt.want, tt.target.rates)
			}
			if len(c.Steps) != len(tt.target.rates) || seen != len(c.Steps) {
				t.Errorf("%d steps reported, %d run, %d seen", len(c.Steps), len(tt.target.rates), seen)
			}
			for _, s := range c.Steps {
				if s.OK != (s.Rate <= tt.want) {
					t.Errorf("step at %g judged ok=%v", s.Rate, s.OK)
				}
			}
		})
	}
}

func TestSearchNoRateMeetsTheObjective(t *testing.T) {
	f := fakeTarget{capacity: 0}
	c, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), Start: 64}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	// 64, 32, ..., 1, each missed twice: once, and again to confirm.
	if c.Stop != result.StopNoRate || c.MaxRate != 0 || len(c.Steps) != 14 {
		t.Errorf("stop %q, max rate %g after %v; want no rate met after 64 down to 1, each run twice", c.Stop, c.MaxRate, f.rates)
	}
	for i, s := range c.Steps {
		if s.Rerun != (i%2 == 1) {
			t.Errorf("step %d at %g: rerun %v", i+1, s.Rate, s.Rerun)
		}
	}
	// With Rechecks negative, one run decides a rate.
	f = fakeTarget{capacity: 0}
	c, err = Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), Start: 64, Rechecks: -1}, f.run)
	if err != nil || c.Stop != result.StopNoRate || len(c.Steps) != 7 {
		t.Errorf("one run a rate: %v, stop %q after %v; want 64 down to 1 once each", err, c.Stop, f.rates)
	}
}

// flaky is a target of capacity 10,000 req/s that, at the rates in
// misses, misses the objective on the runs marked true, in order (a
// pause: half the requests slow), whatever the rate.
type flaky struct {
	fakeTarget
	misses map[float64][]bool
}

func (f *flaky) run(ctx context.Context, rate float64) (*result.Result, error) {
	r, err := f.fakeTarget.run(ctx, rate)
	if m := f.misses[rate]; len(m) > 0 {
		f.misses[rate] = m[1:]
		if m[0] {
			r.Latency.RecordValues(100_000, r.Requests)
		}
	}
	return r, err
}

// TestSearchRidesOutATransientMiss: one miss at a rate well under the
// capacity does not end the rise, so the answer is not halved.
func TestSearchRidesOutATransientMiss(t *testing.T) {
	tests := []struct {
		name     string
		rechecks int
		misses   map[float64][]bool
		want     float64 // the max rate is within 2% under it
		runsOf   float64 // a rate ...
		runs     int     // ... run this many times
	}{
		{name: "a miss then two passes: met, two of three", misses: map[float64][]bool{4000: {true}}, want: 10_000, runsOf: 4000, runs: 3},
		// Missed two of three, 4000 bounds the bisection below it until the
		// search would end there: settling it, two more passes overturn it.
		{name: "a miss, a pass and a miss: missed, then settled as met", misses: map[float64][]bool{4000: {true, false, true}}, want: 10_000, runsOf: 4000, runs: 5},
		{name: "four misses of seven stay missed", misses: map[float64][]bool{4000: {true, false, true, false, true, false, true}}, want: 4000, runsOf: 4000, runs: 7},
		{name: "a pass at once is met in one run", misses: map[float64][]bool{4000: {false, true, true}}, want: 10_000, runsOf: 4000, runs: 1},
		{name: "two rechecks: two misses, then three passes of five", rechecks: 2, misses: map[float64][]bool{8000: {true, true}}, want: 10_000, runsOf: 8000, runs: 5},
		{name: "without rechecks one miss halves the answer", rechecks: -1, misses: map[float64][]bool{4000: {true}}, want: 4000, runsOf: 4000, runs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &flaky{fakeTarget: fakeTarget{capacity: 10_000}, misses: tt.misses}
			c, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), Start: 1000, Rechecks: tt.rechecks}, f.run)
			if err != nil {
				t.Fatal(err)
			}
			if c.MaxRate > tt.want || c.MaxRate < tt.want*(1-DefaultPrecision) {
				t.Errorf("max rate %g, want within 2%% under %g; rates tried %v", c.MaxRate, tt.want, f.rates)
			}
			n := 0
			for _, r := range f.rates {
				if r == tt.runsOf {
					n++
				}
			}
			if n != tt.runs {
				t.Errorf("%g run %d times, want %d; rates tried %v", tt.runsOf, n, tt.runs, f.rates)
			}
		})
	}
}

// TestSearchStopsWithinMaxTime: steps of 30 ms in a budget of 100 ms.
func TestSearchStopsWithinMaxTime(t *testing.T) {
	f := fakeTarget{capacity: 1e9, sleep: 30 * time.Millisecond}
	start := time.Now()
	c, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), MaxTime: 100 * time.Millisecond}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	// Steps of 30 ms fit three times in 100 ms, a fourth cut short: more
	// means the budget was not kept (a slow machine only makes fewer);
	// the wall clock is held loosely, for a search that never stops.
	if took := time.Since(start); len(c.Steps) > 4 || took > time.Second {
		t.Errorf("%d steps in %s with a budget of 100ms", len(c.Steps), took)
	}
	if c.Stop != result.StopMaxTime || len(c.Steps) == 0 || c.MaxRate == 0 {
		t.Errorf("stop %q after %d steps, max rate %g; want max-time after some", c.Stop, len(c.Steps), c.MaxRate)
	}
	// A single step longer than the budget is cut short and dropped.
	f = fakeTarget{capacity: 1e9, sleep: time.Second}
	c, err = Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), MaxTime: 50 * time.Millisecond}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if c.Stop != result.StopMaxTime || len(c.Steps) != 0 {
		t.Errorf("stop %q with %d steps, want max-time and none", c.Stop, len(c.Steps))
	}
}

func TestSearchEndsOnCancelAndErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	c, err := Search(ctx, Config{SLO: slo(t, "p99<10ms")}, func(ctx context.Context, rate float64) (*result.Result, error) {
		if n++; n == 3 {
			cancel()
			return &result.Result{Interrupted: true}, nil
		}
		return (&fakeTarget{capacity: 1e9}).run(ctx, rate)
	})
	if err != nil || c.Stop != result.StopInterrupted || len(c.Steps) != 2 || c.MaxRate != 2000 {
		t.Errorf("cancelled: %v, %+v; want interrupted after two steps, 2000 met", err, c)
	}
	boom := errors.New("cannot connect")
	if _, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms")}, func(context.Context, float64) (*result.Result, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Errorf("err %v, want the step's", err)
	}
	if _, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms")}, func(context.Context, float64) (*result.Result, error) {
		return nil, nil
	}); err == nil || !strings.Contains(err.Error(), "no result") {
		t.Errorf("a step without a result: err %v", err)
	}
	if _, err := Search(context.Background(), Config{}, nil); err == nil || !strings.Contains(err.Error(), "SLO") {
		t.Errorf("no SLO: err %v", err)
	}
}

func TestNextRates(t *testing.T) {
	cfg := Config{SLO: slo(t, "p99<1s")}
	if err := cfg.defaults(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ledger ledger
		want   float64
		stop   string
	}{
		{"the first", ledger{}, DefaultStart, ""},
		{"rising", ledger{4000: {met: 1}}, 8000, ""},
		{"going down", ledger{1000: {missed: 2}}, 500, ""},
		{"nothing under 1 req/s", ledger{1: {missed: 2}}, 0, result.StopNoRate},
		{"bisecting", ledger{4000: {met: 1}, 8000: {missed: 2}}, 6000, ""},
		{"a miss run again", ledger{4000: {met: 1}, 8000: {missed: 1}}, 8000, ""},
		{"a tie run again", ledger{4000: {met: 1}, 8000: {met: 1, missed: 1}}, 8000, ""},
		{"converged: the highest met settled first", ledger{1000: {met: 1}, 1020: {missed: 2}}, 1000, ""},
		{"converged: then the lowest missed", ledger{1000: {met: 3}, 1020: {missed: 2}}, 1020, ""},
		{"converged with both settled", ledger{1000: {met: 3}, 1020: {missed: 3}}, 0, result.StopConverged},
		{"a mixed record needs three of four", ledger{1000: {met: 3}, 1020: {met: 1, missed: 2}}, 1020, ""},
		{"three of four settle", ledger{1000: {met: 3}, 1020: {met: 1, missed: 3}}, 0, result.StopConverged},
		{"a lead of one in five: run again", ledger{1000: {met: 3}, 1020: {met: 2, missed: 3}}, 1020, ""},
		{"seven runs: the majority decides", ledger{1000: {met: 3}, 1020: {met: 3, missed: 4}}, 0, result.StopConverged},
		{"not converged", ledger{1000: {met: 3}, 1021: {missed: 3}}, 1011, ""},
		{"a rate met above one missed: the miss settled", ledger{4000: {met: 1}, 5000: {met: 1, missed: 2}, 6000: {met: 1}}, 5000, ""},
		{"a rate met above one missed: then the met", ledger{4000: {met: 1}, 5000: {missed: 3}, 6000: {met: 1}}, 6000, ""},
		{"crossing for good: the lower miss bounds", ledger{4000: {met: 3}, 4050: {missed: 3}, 6000: {met: 3}}, 0, result.StopConverged},
		{"1 and 2 cannot be bisected", ledger{1: {met: 3}, 2: {missed: 3}}, 0, result.StopConverged},
	}
	for _, tt := range tests {
		got, stop := next(cfg, tt.ledger)
		if got != tt.want || stop != tt.stop || math.IsNaN(got) {
			t.Errorf("%s: next = %g %q, want %g %q", tt.name, got, stop, tt.want, tt.stop)
		}
	}
	// One run a rate (Rechecks negative): nothing is settled.
	plain := Config{SLO: cfg.SLO, Rechecks: -1}
	if err := plain.defaults(); err != nil {
		t.Fatal(err)
	}
	if got, stop := next(plain, ledger{1000: {met: 1}, 1020: {missed: 1}}); stop != result.StopConverged {
		t.Errorf("one run a rate: next = %g %q, want converged", got, stop)
	}
}
