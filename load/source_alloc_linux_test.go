package load

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sourceLoop builds a loop with a feeder and one connection whose socket
// is one end of a socket pair, to drive the whole request path with a
// Source from memory: fill a batch, take a request, write it, parse the
// response, record it for its endpoint.
func sourceLoop(tb testing.TB) (l *loop, c *conn, peer int) {
	return sourceLoopOf(tb, &listSource{names: []string{"GET /a"}, reqs: []SourceRequest{{Request: get("/a"), Endpoint: 0}}})
}

// sourceLoopOf is sourceLoop with src.
func sourceLoopOf(tb testing.TB, src Source) (l *loop, c *conn, peer int) {
	cfg := Config{URL: "http://127.0.0.1:8080/", Source: src, Connections: 1, Loops: 1}
	if pickable(src) {
		cfg.Duration = time.Hour // a source that never ends needs a stop
	}
	e, err := newEngine(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	e.collector = newCollector(1, nil, false)
	loops, err := e.newLoops()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { loops[0].poller.Close() })
	if e.feed != nil {
		e.feed.loops = loops
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	l, c = loops[0], loops[0].conns[0]
	l.recording = true
	c.attach(fds[0])
	c.state = stActive
	return l, c, fds[1]
}

// feedOne puts one batch of requests from the source into the feeder's channel.
func feedOne(f *feeder) {
	b := f.getBatch()
	var r SourceRequest
	for len(b.reqs) < batchRequests {
		r = SourceRequest{Endpoint: -1}
		f.src.(*listSource).i = 0
		f.src.Next(&r)
		f.add(b, &r)
	}
	f.full <- b
}

// TestDataPathDoesNotAllocate is TestSourcePathDoesNotAllocate with a
// DataSource filling templates from CSV rows (gust load --targets with
// --data-csv --data-loop), picked in the loop: once warm, nothing is
// allocated per request.
func TestDataPathDoesNotAllocate(t *testing.T) {
	data := &Data{Name: "d.csv", Columns: []string{"id", "name"}, Rows: [][]string{{"1", "ada"}, {"22", "grace"}, {"333", "barbara"}}}
	src, err := NewDataSource(DataConfig{Host: "h", Data: data, Loop: true, RowOrder: RandomOrder, Requests: []RequestTemplate{
		{Target: "/users/{{id}}", Header: [][2]string{{"X-User", "{{name}}"}}, Weight: 2},
		{Method: "POST", Target: "/orders", Body: `{"user":{{id}}}`},
		{Target: "/health"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	l, c, peer := sourceLoopOf(t, src)
	if _, fed := l.sched.(*recordedSchedule); l.picker == nil || fed {
		t.Fatal("a looping DataSource went to a feeder, not to the loop's picker")
	}
	buf := make([]byte, 4096)
	step := func() {
		l.refill(c, 1)
		if c.inflight() != 1 || c.wleft != 0 {
			t.Fatalf("inflight %d, %d bytes unwritten: the request was not sent", c.inflight(), c.wleft)
		}
		unix.Read(peer, buf)
		l.feed(c, benchResponse, 2)
	}
	for i := 0; i < 2*batchRequests; i++ {
		step()
	}
	allocs := testing.AllocsPerRun(1000, step)
	if allocs != 0 {
		t.Errorf("data path allocates %.2f times per request, want 0", allocs)
	}
	if got := l.eps.requests[0] + l.eps.requests[1] + l.eps.requests[2]; got < 1000 {
		t.Errorf("endpoint responses %d: the responses were not matched", got)
	}
}

// TestSourcePathDoesNotAllocate holds the replay's per-request path to
// zero allocations once warm: batches are recycled, write buffers and
// endpoint histograms reused.
func TestSourcePathDoesNotAllocate(t *testing.T) {
	l, c, peer := sourceLoop(t)
	buf := make([]byte, 4096)
	step := func() {
		if s := l.sched.(*recordedSchedule); s.cur == nil || s.cur.next == len(s.cur.reqs) {
			feedOne(s.feeder)
		}
		l.refill(c, 1)
		if c.inflight() != 1 || c.wleft != 0 {
			t.Fatalf("inflight %d, %d bytes unwritten: the request was not sent", c.inflight(), c.wleft)
		}
		unix.Read(peer, buf)
		l.feed(c, benchResponse, 2)
	}
	for i := 0; i < 2*batchRequests; i++ {
		step() // warm up: grow buffers, make the endpoint's histogram
	}
	allocs := testing.AllocsPerRun(1000, step)
	if allocs != 0 {
		t.Errorf("source path allocates %.2f times per request, want 0", allocs)
	}
	if got := l.eps.requests[0]; got < 1000 {
		t.Errorf("endpoint responses %d: the responses were not matched", got)
	}
}
