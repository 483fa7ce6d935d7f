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

// kneeSearches runs the search from 20,000 req/s against noisyKnee once
// per seed and returns the rates found, lowest first, and the median and
// most steps a search took.
func kneeSearches(t *testing.T, rechecks, seeds int) (found []float64, medianSteps, mostSteps int) {
	t.Helper()
	var steps []int
	for seed := range seeds {
		f := noisyKnee
		f.rng = rand.New(rand.NewPCG(uint64(seed), 1))
		c, err := Search(context.Background(), Config{SLO: slo(t, "p99<10ms"), Start: 20_000, Rechecks: rechecks}, f.run)
		if err != nil {
			t.Fatal(err)
		}
		if c.Stop != result.StopConverged {
			t.Errorf("seed %d: stopped %q", seed, c.Stop)
		}
		found = append(found, c.MaxRate)
		steps = append(steps, f.steps)
	}
	slices.Sort(found)
	slices.Sort(steps)
	return found, steps[seeds/2], steps[seeds-1]
}

// TestSearchAgreesOnANoisyKnee: fifty searches of the noisy knee, each
// with its own noise, all find a rate from 10% under R to the rate where
// one step in ten passes, and all within 10% of each other, with the
// default rechecks and with two.
func TestSearchAgreesOnANoisyKnee(t *testing.T) {
	const seeds = 50
	// A single step passes at R·e^(1.28σ/k) one time in ten.
	ceiling := noisyKnee.R * math.Exp(1.28*noisyKnee.sigma/noisyKnee.k)
	for _, tt := range []struct {
		rechecks  int
		spread    float64 // the most the highest rate found may be over the lowest
		mostSteps int
	}{
		{rechecks: 0, spread: 0.10, mostSteps: 50}, // the default, 1
		{rechecks: 2, spread: 0.10, mostSteps: 80},
	} {
		found, median, most := kneeSearches(t, tt.rechecks, seeds)
		lowest, highest := found[0], found[len(found)-1]
		t.Logf("rechecks %d: %d searches found %.0f to %.0f req/s (median %.0f, spread %.1f%%) in %d steps (median), at most %d",
			max(tt.rechecks, DefaultRechecks), seeds, lowest, highest, found[seeds/2], 100*(highest/lowest-1), median, most)
		if lowest < 0.9*noisyKnee.R || highest > ceiling {
			t.Errorf("rechecks %d: found %.0f to %.0f req/s, want from %.0f to %.0f", tt.rechecks, lowest, highest, 0.9*noisyKnee.R, ceiling)
		}
		if highest > (1+tt.spread)*lowest {
			t.Errorf("rechecks %d: found %.0f to %.0f req/s: more than %g%% apart", tt.rechecks, lowest, highest, 100*tt.spread)
		}
		// The time it costs: judging each rate by one run, a search from
		// 20,000 to within 2% takes 8 or 9 steps, the rule before the
		// bounds were settled about 15; settling them takes more, never
		// without end.
		if most > tt.mostSteps {
			t.Errorf("rechecks %d: a search took %d steps", tt.rechecks, most)
		}
	}
}

// TestPlainBisectionSpreadsOnANoisyKnee documents why the bounds are
// settled: judging each rate by one run (Rechecks negative), the same
// fifty searches spread far wider than 10%.
func TestPlainBisectionSpreadsOnANoisyKnee(t *testing.T) {
	found, _, _ := kneeSearches(t, -1, 50)
	lowest, highest := found[0], found[len(found)-1]
	t.Logf("one run a rate: %.0f to %.0f req/s (median %.0f, spread %.1f%%)", lowest, highest, found[25], 100*(highest/lowest-1))
	if highest <= 1.1*lowest {
		t.Errorf("one run a rate found %.0f to %.0f req/s: within 10%%, the simulated knee is not noisy enough", lowest, highest)
	}
}
