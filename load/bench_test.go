package load

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/gust-http/gust/result"
)

var benchResponse = []byte("HTTP/1.1 200 OK\r\nServer: bench\r\nDate: Sun, 22 Nov 2026 01:00:00 GMT\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\n\r\nHello, Go!")

// feedLoop builds a loop with one connection and no sockets, to drive the
// response path (parse, match, record) from memory.
func feedLoop(tb testing.TB) (*loop, *conn) {
	e, err := newEngine(Config{URL: "http://127.0.0.1:8080/", Requests: 1})
	if err != nil {
		tb.Fatal(err)
	}
	e.collector = newCollector(1, nil, false)
	l := &loop{e: e, stats: newStats(), secHist: result.NewHistogram(), recording: true}
	c := newConn(newH1Session(16, false))
	c.state = stActive
	return l, c
}

// TestResponsePathDoesNotAllocate holds the hot path to zero allocations:
// a response split over two reads, and a batch of pipelined responses.
func TestResponsePathDoesNotAllocate(t *testing.T) {
	l, c := feedLoop(t)
	batch := bytes.Repeat(benchResponse, 16)
	split := len(benchResponse) / 3
	allocs := testing.AllocsPerRun(1000, func() {
		l.send(c, &noRequest, 1, 0, 1)
		l.feed(c, benchResponse[:split], 2)
		l.feed(c, benchResponse[split:], 3)
		for i := 0; i < 16; i++ {
			l.send(c, &noRequest, 4, 0, 4)
		}
		l.feed(c, batch, 5)
	})
	if allocs != 0 {
		t.Errorf("response path allocates %.1f times per run, want 0", allocs)
	}
	if l.stats.requests == 0 || c.inflight() != 0 {
		t.Fatalf("requests %d inflight %d: the responses were not matched", l.stats.requests, c.inflight())
	}
}

// BenchmarkResponsePath measures parsing one "Hello, Go!" response and
// recording its latency and status, as the loop does for every response.
func BenchmarkResponsePath(b *testing.B) {
	l, c := feedLoop(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchResponse)))
	for i := 0; i < b.N; i++ {
		l.send(c, &noRequest, int64(i), 0, int64(i))
		l.feed(c, benchResponse, int64(i)+50_000)
	}
	if l.stats.requests != int64(b.N) {
		b.Fatalf("requests %d, want %d", l.stats.requests, b.N)
	}
}

// BenchmarkLoopback runs b.N requests end to end over loopback against a
// minimal in-process server that allocates nothing per request, so
// allocs/op counts the generator's allocations per request (setup is done
// before the timer starts; connects are a fixed cost spread over b.N).
// The live case is watched as gust load --metrics-addr watches a run
// (Config.Live once a second, the cumulative histogram mapped for
// Prometheus): what that costs a second, spread over the requests.
func BenchmarkLoopback(b *testing.B) {
	for _, bc := range []struct {
		name     string
		pipeline int
		live     func(*Live)
	}{{"keepalive", 1, nil}, {"pipeline16", 16, nil}, {"live", 1, benchLive}} {
		b.Run(bc.name, func(b *testing.B) {
			addr := cannedServer(b)
			benchRun(b, Config{URL: "http://" + addr + "/", Connections: 50, Requests: int64(b.N), Pipeline: bc.pipeline, Live: bc.live})
		})
	}
}

// benchLive does what the metrics exporter does with a Live, without
// importing it (it imports load): walk the histogram's counts.
func benchLive(l *Live) {
	var n int64
	for _, bar := range l.Latency.Distribution() {
		n += bar.Count
	}
	if n != l.Requests {
		panic("live histogram and request count disagree")
	}
}

// cannedServer answers every request head with benchResponse, without
// allocating per request, so that benchmarks measure the client.
func cannedServer(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answerCanned(c)
		}
	}()
	return ln.Addr().String()
}

// BenchmarkSourceLoopback is BenchmarkLoopback with the requests coming
// from a Source (as gust replay sends them): each request is copied into
// a batch by the feeder and into its connection's write buffer by the
// loop, and its response is recorded for its endpoint.
func BenchmarkSourceLoopback(b *testing.B) {
	addr := cannedServer(b)
	src := &listSource{names: []string{"GET /a", "GET /b"}, passes: 1 << 40, reqs: []SourceRequest{
		{Request: get("/a?x=1"), Endpoint: 0},
		{Request: get("/b/2"), Endpoint: 1},
	}}
	benchRun(b, Config{URL: "http://" + addr + "/", Connections: 50, Requests: int64(b.N), Source: src})
}

// BenchmarkDataLoopback is BenchmarkSourceLoopback with requests from
// a DataSource (gust load --targets with --data-csv): two requests
// interleaved by weight, one static, one a template whose target, header
// and body are filled from the next CSV row into reused buffers,
// Content-Length recomputed. allocs/op stays 0.
func BenchmarkDataLoopback(b *testing.B) {
	addr := cannedServer(b)
	data := &Data{Name: "bench.csv", Columns: []string{"id", "name"}}
	for i := range 1000 {
		data.Rows = append(data.Rows, []string{strconv.Itoa(i), "user" + strconv.Itoa(i)})
	}
	src, err := NewDataSource(DataConfig{Host: addr, Data: data, Loop: true, Requests: []RequestTemplate{
		{Target: "/users/{{id}}?name={{name}}", Header: [][2]string{{"X-User", "{{name}}"}}, Weight: 3},
		{Method: "POST", Target: "/items", Header: [][2]string{{"Content-Type", "application/json"}}, Body: `{"id":{{id}}}`},
	}})
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, Config{URL: "http://" + addr + "/", Connections: 50, Requests: int64(b.N), Source: src})
}

// benchRun runs cfg's b.N requests with the setup (loops, histograms)
// outside the timer, and fails unless every request was answered.
func benchRun(b *testing.B, cfg Config) {
	e, err := newEngine(cfg)
	if err != nil {
		b.Fatal(err)
	}
	loops, err := e.newLoops()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	res := e.runLoops(context.Background(), loops)
	b.StopTimer()
	if res.Requests != int64(b.N) || res.ErrorCount() != 0 {
		b.Fatalf("requests %d errors %v, want %d and none", res.Requests, res.Errors, b.N)
	}
	b.ReportMetric(float64(res.Latency.ValueAtQuantile(99)), "p99-us")
}

// answerCanned answers each request head (found by its CRLFCRLF, across
// reads) with benchResponse: the canned servers' per-connection loop.
func answerCanned(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, 64<<10)
	var tail uint32
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		out = out[:0]
		for _, ch := range buf[:n] {
			tail = tail<<8 | uint32(ch)
			if tail == 0x0d0a0d0a {
				out = append(out, benchResponse...)
			}
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// noRequest is a request of no bytes, for driving the response path alone.
var noRequest = request{wire: []byte{}}
