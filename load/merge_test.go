package load

import (
	"math/rand/v2"
	"testing"

	"github.com/gust-http/gust/result"
)

// TestLoopStatsMergeExactly checks that merging per-loop histograms and
// counters gives exactly what one histogram of all the values gives.
func TestLoopStatsMergeExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := result.NewHistogram()
	loops := []*stats{newStats(), newStats(), newStats()}
	for i := 0; i < 30000; i++ {
		v := 1 + rng.Int64N(2_000_000)
		all.RecordValue(v)
		s := loops[i%len(loops)]
		s.latency.RecordValue(v)
		s.requests++
		s.status[200+i%2]++
	}
	loops[1].errors[result.ErrReset] = 4
	res := (&engine{}).newResult()
	for _, s := range loops {
		s.mergeInto(res, nil, nil)
	}
	if res.Requests != 30000 || res.Status[200] != 15000 || res.Status[201] != 15000 || res.Errors[result.ErrReset] != 4 {
		t.Errorf("merged counts: requests %d status %v errors %v", res.Requests, res.Status, res.Errors)
	}
	if !res.Latency.Equals(all) {
		for _, q := range []float64{50, 90, 99, 99.9, 100} {
			t.Logf("q%.1f merged %d single %d", q, res.Latency.ValueAtQuantile(q), all.ValueAtQuantile(q))
		}
		t.Error("merged histogram differs from the histogram of all values")
	}
}

// TestCollectorMergesSecondsAcrossLoops feeds the collector intervals from
// two loops out of step and checks the timeline it builds.
func TestCollectorMergesSecondsAcrossLoops(t *testing.T) {
	var progress []Progress
	c := newCollector(2, func(p Progress) { progress = append(progress, p) }, true)
	done := make(chan struct{})
	go func() { c.run(); close(done) }()
	send := func(loop, second int, requests int64, values ...int64) {
		h := result.NewHistogram()
		for _, v := range values {
			h.RecordValue(v)
		}
		c.in <- interval{loop: loop, second: second, requests: requests, hist: h}
	}
	send(0, 0, 2, 100, 200)
	send(0, 1, 1, 5000)
	send(1, 0, 1, 300)
	send(1, 1, 1, 7000)
	send(0, 2, 1, 10) // a last partial second only loop 0 reached
	close(c.in)
	<-done

	if len(c.timeline) != 3 {
		t.Fatalf("timeline has %d seconds, want 3: %+v", len(c.timeline), c.timeline)
	}
	want := []struct {
		requests int64
		p99      int64
	}{{3, 300}, {2, 7000}, {1, 10}}
	ref := result.NewHistogram() // for its precision: values within a bucket are equivalent
	for i, w := range want {
		s := c.timeline[i]
		if s.Second != i || s.Requests != w.requests || !ref.ValuesAreEquivalent(s.P99us, w.p99) {
			t.Errorf("second %d = %+v, want %d requests and p99 %d", i, s, w.requests, w.p99)
		}
		if len(s.Hist) == 0 {
			t.Errorf("second %d kept no histogram", i)
		}
	}
	if len(progress) != 3 || progress[2].Requests != 6 {
		t.Errorf("progress = %+v, want 3 reports ending at 6 requests", progress)
	}
}

func TestTimerHeapOrdersByTime(t *testing.T) {
	var h timerHeap
	rng := rand.New(rand.NewPCG(3, 4))
	conns := make([]*conn, 200)
	for i := range conns {
		conns[i] = newConn(newH1Session(1, false))
		conns[i].at = rng.Int64N(1000)
		h.push(conns[i])
	}
	// Move some and remove some, as loops do.
	for i := 0; i < 50; i++ {
		conns[i].at = rng.Int64N(1000)
		h.push(conns[i])
	}
	for i := 50; i < 70; i++ {
		h.remove(conns[i])
	}
	last := int64(-1)
	n := 0
	for h.peek() != nil {
		c := h.pop()
		if c.at < last {
			t.Fatalf("popped %d after %d", c.at, last)
		}
		if c.heapIdx != -1 {
			t.Fatal("a popped connection still has a heap index")
		}
		last = c.at
		n++
	}
	if n != 180 {
		t.Errorf("popped %d, want 180", n)
	}
}

// TestOpenModelScheduleIsEvenlySpaced checks that the connections'
// schedules interleave so the total rate is evenly spaced.
func TestOpenModelScheduleIsEvenlySpaced(t *testing.T) {
	e, err := newEngine(Config{URL: "http://127.0.0.1:1/", Connections: 4, Rate: 1000, Requests: 1, Loops: 2})
	if err != nil {
		t.Fatal(err)
	}
	loops, err := e.newLoops()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, l := range loops {
			l.close()
		}
	}()
	var starts []int64
	for _, l := range loops {
		if s, ok := l.sched.(*rateSchedule); !ok || s.interval != 4_000_000 {
			t.Errorf("schedule = %#v, want a per-connection interval of 4ms (4 connections sharing 1000/s)", l.sched)
		}
		for _, c := range l.conns {
			starts = append(starts, c.next)
		}
	}
	seen := map[int64]bool{}
	for _, s := range starts {
		seen[s] = true
	}
	for _, want := range []int64{0, 1_000_000, 2_000_000, 3_000_000} {
		if !seen[want] {
			t.Errorf("no connection starts at %d ns; starts %v", want, starts)
		}
	}
}
