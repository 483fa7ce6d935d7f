package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gust-http/gust/report"
)

// rateLimitedServer answers at once while the requests of the current
// step arrive at up to capacity per second, and after a slow 300 ms above
// that rate: a server with a known capacity. A step is the requests since
// a new batch of connections (each step of gust load --find-max opens its
// own). Its rate is counted from 200 ms after its first request, when the
// requests its start delayed have caught up, so that a burst of requests
// the generator sent late (on a loaded machine) does not push a rate under
// the capacity over it: later late requests only catch up.
func rateLimitedServer(capacity float64) *httptest.Server {
	const settle = 200 * time.Millisecond
	var mu sync.Mutex
	var lastConn, first time.Time // first: when counting began
	count := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		if first.IsZero() {
			first = now.Add(settle)
		}
		over := false
		if now.After(first) {
			count++
			elapsed := now.Sub(first).Seconds()
			over = elapsed > 0.05 && float64(count)/elapsed > capacity
		}
		mu.Unlock()
		if over {
			time.Sleep(300 * time.Millisecond)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state != http.StateNew {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); now.Sub(lastConn) > 200*time.Millisecond { // a new step
			first, count = time.Time{}, 0
		}
		lastConn = time.Now()
	}
	srv.Start()
	return srv
}

// TestFindMaxFindsAKnownCapacity searches a server that slows down above
// 600 req/s: the rate found is within 5% of it. The objective is p90, so
// that stalls of a loaded machine's generator (whose latency counts from
// the intended send times) do not make steps under the capacity miss. A
// stall can still make the server count a burst of late requests as a
// rate over its capacity (its estimate of the rate is over 1 s or less), so
// a search off by more than 5% is run again, up to three times in all.
func TestFindMaxFindsAKnownCapacity(t *testing.T) {
	const capacity = 600
	srv := rateLimitedServer(capacity)
	defer srv.Close()
	var doc report.CapacityDoc
	for attempt := 1; ; attempt++ {
		start := time.Now()
		out, stderr, err := gust(t, "load", "--find-max", "--slo", "p90<100ms", "--find-start", "400", "--find-precision", "0.04",
			"-z", "800ms", "--warmup", "500ms", "-c", "100", "--max-time", "40s", "-o", "json", srv.URL)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("not a capacity document: %v\n%s", err, out)
		}
		c := doc.Capacity
		t.Logf("attempt %d: %g req/s in %s after %d steps:\n%s", attempt, c.MaxRate, time.Since(start).Round(time.Millisecond), len(c.Steps), stderr)
		if c.MaxRate >= capacity*0.95 && c.MaxRate <= capacity*1.05 {
			break
		}
		if attempt == 3 {
			t.Fatalf("found %g req/s, want within 5%% of %d", c.MaxRate, capacity)
		}
	}
	c := doc.Capacity
	if c.Stop != "converged" || c.URL != srv.URL+"/" && c.URL != srv.URL || len(c.SLO) != 1 || c.SLO[0] != "p90<100ms" {
		t.Errorf("search %+v, want converged on %s with the SLO", c, srv.URL)
	}
	// The rates in the order tried (a rate that missed is run again
	// before the next), and each rate's runs met and missed.
	var rates []float64
	met, missed := map[float64]int{}, map[float64]int{}
	for _, s := range c.Steps {
		if s.Requests == 0 || s.Latency.P99 == 0 || s.AchievedRPS == 0 || len(s.Thresholds) != 1 || s.OK != (s.Thresholds[0].OK && !s.Short) {
			t.Errorf("step %+v is missing its numbers", s)
		}
		if len(rates) == 0 || rates[len(rates)-1] != s.Rate {
			rates = append(rates, s.Rate)
		}
		if s.OK {
			met[s.Rate]++
		} else {
			missed[s.Rate]++
		}
	}
	if len(rates) < 3 || rates[0] != 400 || rates[1] != 800 && rates[1] != 200 {
		t.Errorf("rates %v, want 400, then 800 (or 200), ...", rates)
	}
	for r, n := range met {
		if n > missed[r] && r > c.MaxRate {
			t.Errorf("rate %g met the objective in %d of %d runs, above the max rate %g", r, n, n+missed[r], c.MaxRate)
		}
	}
}

// TestFindMaxRefusesBadFlags: one line, exit status 2, before any load.
func TestFindMaxRefusesBadFlags(t *testing.T) {
	url := "http://127.0.0.1:1/"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--find-max", url}, "needs an objective"},
		{[]string{"--find-max", "--slo", "p99<10", url}, "with a unit"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--rate", "100", url}, "picks the rates"},
		{[]string{"--find-max", "--slo", "p99<10ms", "-n", "100", url}, "drop -n"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--threshold", "p99<1s", url}, "--slo rather than --threshold"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--find-start", "0", url}, "--find-start must be positive"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--find-precision", "1", url}, "--find-precision"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--max-time", "0s", url}, "--max-time must be positive"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--fail-status", "9xx", url}, "--fail-status"},
		{[]string{"--find-max", "--slo", "p99<10ms", "--cpuprofile", "x.prof", url}, "record one run"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := gust(t, append([]string{"load"}, tt.args...)...)
			wantOneLineError(t, err, tt.want)
			if got := exitStatusOf(err); got != 2 {
				t.Errorf("exit status %d, want 2", got)
			}
		})
	}
}
