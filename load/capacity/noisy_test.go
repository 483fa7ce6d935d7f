package capacity

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// kneeTarget is a simulated server with a noisy knee: the median step's
// p99 is 10 ms × (rate/R)^k, so exactly the objective p99<10ms at R; each
// step's p99 is that times lognormal noise (sigma), and a share of steps
// (spikes) miss whatever the rate, as a collector's pause or a busy
// neighbour would make them. Its noise is drawn from rng, so a seed
// replays a search exactly.
type kneeTarget struct {
	R, k, sigma, spikes float64
	rng                 *rand.Rand
	steps               int
}

func (f *kneeTarget) run(_ context.Context, rate float64) (*result.Result, error) {
	f.steps++
	p99 := 10_000 * math.Pow(rate/f.R, f.k) * math.Exp(f.sigma*f.rng.NormFloat64())
	if f.rng.Float64() < f.spikes {
		p99 = max(p99, 10_000*(1.5+5*f.rng.Float64()))
	}
	p99 = min(max(p99, 200), 10_000_000)
	r := &result.Result{Rate: rate, Duration: time.Second, Latency: result.NewHistogram(), Lateness: result.NewHistogram(),
		Status: map[int]int64{}, Errors: map[result.ErrorKind]int64{}}
	n := int64(rate)
	r.Latency.RecordValues(int64(p99), n)
	r.Requests = n
	r.Status[200] = n
	return r, nil
}

// noisyKnee is the target the searches below must agree on: a knee at
// 60,000 req/s where a step's p99 varies by ±25% (one sigma), 1 step in
// 20 misses whatever its rate, and a single step passes at 1.05 R one
// time in five and misses at 0.95 R one time in eight.
var noisyKnee = kneeTarget{R: 60_000, k: 6, sigma: 0.25, spikes: 0.05}

// kneeStep is how long a simulated step takes: 2 s measured after a
// 0.5 s warmup, and connecting.
const kneeStep = 2700 * time.Millisecond

// kneeSearches runs the search from 20,000 req/s against noisyKnee once
// per seed, on a simulated clock that each step moves on by kneeStep,
// within the time budget maxTime. It returns the rates found, lowest
// first, the median and most steps a search took, and how many searches
// the budget ended.
func kneeSearches(t *testing.T, rechecks, seeds int, maxTime time.Duration) (found []float64, medianSteps, mostSteps, cut int) {
	t.Helper()
	var steps []int
	for seed := range seeds {
		f := noisyKnee
		f.rng = rand.New(rand.NewPCG(uint64(seed), 1))
		now := time.Unix(0, 0)
		run := func(ctx context.Context, rate float64) (*result.Result, error) {
			now = now.Add(kneeStep)
			return f.run(ctx, rate)
		}
		c, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), Start: 20_000, Rechecks: rechecks, MaxTime: maxTime,
			clock: func() time.Time { return now }}, run)
		if err != nil {
			t.Fatal(err)
		}
		switch c.Stop {
		case result.StopConverged:
		case result.StopMaxTime:
			cut++
		default:
			t.Errorf("seed %d: stopped %q", seed, c.Stop)
		}
		found = append(found, c.MaxRate)
		steps = append(steps, f.steps)
	}
	slices.Sort(found)
	slices.Sort(steps)
	return found, steps[seeds/2], steps[seeds-1], cut
}

// TestSearchAgreesOnANoisyKnee: fifty searches of the noisy knee, each
// with its own noise, all find a rate from 10% under R to the rate where
// one step in ten passes, and all within 10% of each other: with the
// default rechecks within the default budget of 2 minutes (44 steps of
// 2.7 s), and with two rechecks within 3 minutes (two minutes would end
// a quarter of them with the bounds unsettled).
func TestSearchAgreesOnANoisyKnee(t *testing.T) {
	const seeds = 50
	// A single step passes at R·e^(1.28σ/k) one time in ten.
	ceiling := noisyKnee.R * math.Exp(1.28*noisyKnee.sigma/noisyKnee.k)
	for _, tt := range []struct {
		rechecks int
		maxTime  time.Duration
	}{
		{0, DefaultMaxTime}, // the default rechecks, 1
		{2, 3 * time.Minute},
	} {
		rechecks := tt.rechecks
		found, median, most, cut := kneeSearches(t, rechecks, seeds, tt.maxTime)
		lowest, highest := found[0], found[len(found)-1]
		t.Logf("rechecks %d: %d searches found %.0f to %.0f req/s (median %.0f, spread %.1f%%) in %d steps (median), at most %d; %d ended by the budget",
			max(rechecks, DefaultRechecks), seeds, lowest, highest, found[seeds/2], 100*(highest/lowest-1), median, most, cut)
		if lowest < 0.9*noisyKnee.R || highest > ceiling {
			t.Errorf("rechecks %d: found %.0f to %.0f req/s, want from %.0f to %.0f", rechecks, lowest, highest, 0.9*noisyKnee.R, ceiling)
		}
		if highest > 1.1*lowest {
			t.Errorf("rechecks %d: found %.0f to %.0f req/s: more than 10%% apart", rechecks, lowest, highest)
		}
	}
}

// TestPlainBisectionSpreadsOnANoisyKnee documents why the bounds are
// settled: judging each rate by one run (Rechecks negative), the same
// fifty searches spread far wider than 10%.
func TestPlainBisectionSpreadsOnANoisyKnee(t *testing.T) {
	found, _, _, _ := kneeSearches(t, -1, 50, DefaultMaxTime)
	lowest, highest := found[0], found[len(found)-1]
	t.Logf("one run a rate: %.0f to %.0f req/s (median %.0f, spread %.1f%%)", lowest, highest, found[25], 100*(highest/lowest-1))
	if highest <= 1.1*lowest {
		t.Errorf("one run a rate found %.0f to %.0f req/s: within 10%%, the simulated knee is not noisy enough", lowest, highest)
	}
}
