package load

import (
	"context"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// stagesLoop builds a loop running stages at 1000 req/s with one
// connection whose socket is one end of a socket pair, to drive the
// whole request path of the stages schedule from memory: the due request
// handed to the idle connection, written, its response parsed and
// recorded, the connection parked again.
func stagesLoop(tb testing.TB) (l *loop, c *conn, peer int) {
	stages := []Stage{{0, 1000}, {time.Hour, 1000}}
	e, err := newEngine(Config{URL: "http://127.0.0.1:8080/", Stages: stages, Connections: 1, Loops: 1})
	if err != nil {
		tb.Fatal(err)
	}
	e.collector = newCollector(1, nil, false)
	loops, err := e.newLoops()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { loops[0].poller.Close() })
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	l, c = loops[0], loops[0].conns[0]
	l.recording = true
	c.attach(fds[0])
	c.state = stActive
	l.sched.begin(c, 0)
	l.sched.(*stagesSchedule).idle.park(c) // connected and waiting for the first request
	return l, c, fds[1]
}

// stagesStep moves the clock to the next request's time and runs one
// round trip through the loop: dispatch, write, response, park.
func stagesStep(tb testing.TB, l *loop, c *conn, peer int, buf []byte, now *int64) {
	*now += int64(time.Millisecond)
	l.sched.dispatch(l, *now)
	if c.inflight() != 1 || c.wleft != 0 {
		tb.Fatalf("inflight %d, %d bytes unwritten: the due request was not sent", c.inflight(), c.wleft)
	}
	unix.Read(peer, buf)
	l.feed(c, benchResponse, *now+50_000)
	l.refill(c, *now+50_000) // parks it: the next request is not due yet
	if !c.idle {
		tb.Fatal("the connection was not parked for the next request")
	}
}

// TestStagesPathDoesNotAllocate holds the stages schedule's per-request
// path to zero allocations: the curve's inverse is arithmetic, and the
// idle queue a ring made once.
func TestStagesPathDoesNotAllocate(t *testing.T) {
	l, c, peer := stagesLoop(t)
	buf := make([]byte, 4096)
	now := int64(-time.Millisecond) // the first request is due at 0
	for range 100 {
		stagesStep(t, l, c, peer, buf, &now) // warm up: grow buffers
	}
	allocs := testing.AllocsPerRun(1000, func() { stagesStep(t, l, c, peer, buf, &now) })
	if allocs != 0 {
		t.Errorf("stages path allocates %.2f times per request, want 0", allocs)
	}
	if got := l.stats.requests; got < 1000 {
		t.Errorf("responses %d: the responses were not matched", got)
	}
	if l.stats.late != 0 {
		t.Errorf("%d requests late on a clock that stepped to each one's time", l.stats.late)
	}
}

// BenchmarkStagesPath is TestStagesPathDoesNotAllocate's round trip: a
// request of the stages schedule handed to an idle connection, written
// to a socket pair, its response parsed and recorded.
func BenchmarkStagesPath(b *testing.B) {
	l, c, peer := stagesLoop(b)
	buf := make([]byte, 4096)
	now := int64(-time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		stagesStep(b, l, c, peer, buf, &now)
	}
}

// BenchmarkStagesLoopback runs stages at a flat 20,000 req/s over
// loopback against the canned server for as long as b.N requests take,
// and reports the allocations per response of the whole run (setup,
// each second's histogram and the goroutines included) and the share of
// requests that started more than 1 ms late. ns/op is the schedule's
// spacing, not a speed: compare CPU time with a --rate run instead.
func BenchmarkStagesLoopback(b *testing.B) {
	addr := cannedServer(b)
	const rate = 20000.0
	d := max(time.Duration(float64(b.N)/rate*float64(time.Second)), 100*time.Millisecond)
	e, err := newEngine(Config{URL: "http://" + addr + "/", Connections: 50, Stages: []Stage{{0, rate}, {d, rate}}})
	if err != nil {
		b.Fatal(err)
	}
	loops, err := e.newLoops()
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	res := e.runLoops(context.Background(), loops)
	b.StopTimer()
	runtime.ReadMemStats(&after)
	if res.Requests == 0 || res.ErrorCount() != 0 {
		b.Fatalf("requests %d errors %v", res.Requests, res.Errors)
	}
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(res.Requests), "allocs/response")
	b.ReportMetric(100*float64(res.Late)/float64(max(1, res.Lateness.TotalCount())), "late-%")
}
