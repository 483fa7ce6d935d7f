package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// golden compares got with testdata/name, or rewrites the file under -update.
// Encoded histograms are replaced by what they hold (see describeHistograms)
// so that the files stay readable and do not depend on zlib's exact output.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = describeHistograms(t, got)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test ./report/ -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// encodedHistogram matches a histogram in HdrHistogram's V2 compressed
// encoding, base64 text.
var encodedHistogram = regexp.MustCompile(`HISTF[A-Za-z0-9+/]+=*`)

// describeHistograms replaces every encoded histogram in out with a summary
// of its contents, failing the test if one does not decode.
func describeHistograms(t *testing.T, out []byte) []byte {
	t.Helper()
	return encodedHistogram.ReplaceAllFunc(out, func(enc []byte) []byte {
		h, err := hdrhistogram.Decode(enc)
		if err != nil {
			t.Errorf("undecodable histogram %.20s...: %v", enc, err)
			return enc
		}
		return fmt.Appendf(nil, "<histogram: %d values, min %d, p50 %d, p99 %d, max %d>",
			h.TotalCount(), h.Min(), h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.Max())
	})
}

// fixtureStart is every fixture's Start: a fixed instant with milliseconds.
var fixtureStart = time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

// fixture is a named, deterministic Result for table-driven tests.
type fixture struct {
	name   string
	result func() *result.Result
}

// fixtures are the Results every writer is tested with.
var fixtures = []fixture{
	{"closed", closedRun},
	{"open_late", openLateRun},
	{"keepalive_off", keepAliveOffRun},
	{"empty_interrupted", emptyInterruptedRun},
	{"replay", replayRun},
	{"merged", mergedRun},
	{"targets_merged", targetsMergedRun},
	{"http2", http2Run},
	{"auto", autoRun},
	{"tls", tlsRun},
	{"websocket", webSocketRun},
	{"judged", judgedRun},
	{"zero", func() *result.Result { return &result.Result{} }},
}

// record fills h with count copies of each value; values and counts alternate.
func record(h *hdrhistogram.Histogram, valueCounts ...int64) {
	for i := 0; i+1 < len(valueCounts); i += 2 {
		if err := h.RecordValues(valueCounts[i], valueCounts[i+1]); err != nil {
			panic(err)
		}
	}
}

// timeline builds n seconds, each filled by fill, and returns them with
// the run's merged latency histogram. With keepHist each second carries its
// encoded histogram, as with load.Config.IntervalHistograms.
func timeline(n int, keepHist bool, bytesPerResponse int64, errorsIn func(s int) int64, fill func(s int, h *hdrhistogram.Histogram)) (*hdrhistogram.Histogram, []result.Second) {
	latency := result.NewHistogram()
	seconds := make([]result.Second, n)
	for s := range seconds {
		h := result.NewHistogram()
		fill(s, h)
		latency.Merge(h)
		sec := result.Second{
			Second:    s,
			Requests:  h.TotalCount(),
			Errors:    errorsIn(s),
			BytesRead: h.TotalCount() * bytesPerResponse,
			P50us:     h.ValueAtQuantile(50),
			P99us:     h.ValueAtQuantile(99),
		}
		if keepHist {
			enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				panic(err)
			}
			sec.Hist = enc
		}
		seconds[s] = sec
	}
	return latency, seconds
}

func noErrors(int) int64 { return 0 }

// closedRun is a typical closed-model run with keep-alive, a long tail and
// per-second histograms; its connections were opened during warm-up.
func closedRun() *result.Result {
	latency, seconds := timeline(11, true, 124, noErrors, func(s int, h *hdrhistogram.Histogram) {
		if s == 10 { // the last two milliseconds
			record(h, 400, 118)
			return
		}
		record(h,
			180+7*int64(s), 20000,
			420, 25000+100*int64(s),
			950, 9000,
			2300, 4500,
			8700, 1400,
			31000, 90+int64(s),
			150000, 2)
	})
	n := latency.TotalCount()
	return &result.Result{
		URL:          "http://127.0.0.1:8080/",
		Method:       "GET",
		Connections:  50,
		Loops:        2,
		Pipeline:     1,
		KeepAlive:    true,
		Start:        fixtureStart,
		Duration:     10*time.Second + 2*time.Millisecond,
		Requests:     n,
		BytesRead:    n * 124,
		BytesWritten: n * 52,
		Connects:     50,
		Latency:      latency,
		Connect:      result.NewHistogram(),
		Lateness:     result.NewHistogram(),
		Status:       map[int]int64{200: n - 23, 503: 23},
		Errors:       map[result.ErrorKind]int64{},
		Timeline:     seconds,
	}
}

// openLateRun is an open-model run at 10,000 req/s with pipelining, some
// requests started late and some timed out. Connect is nil, as in a Result
// built by hand.
func openLateRun() *result.Result {
	latency, seconds := timeline(10, false, 310, func(int) int64 { return 5 }, func(s int, h *hdrhistogram.Histogram) {
		record(h, 300+10*int64(s), 6000, 700, 2500, 1800, 1200, 25000, 295)
	})
	lateness := result.NewHistogram()
	record(lateness, 20, 90000, 400, 8766, 1500, 800, 4000, 400, 15000, 34)
	n := latency.TotalCount()
	return &result.Result{
		URL:          "http://localhost:9000/api/items?limit=10&sort=id",
		Method:       "POST",
		Connections:  100,
		Loops:        2,
		Pipeline:     8,
		Rate:         10000,
		KeepAlive:    true,
		Start:        fixtureStart,
		Duration:     10 * time.Second,
		Requests:     n,
		BytesRead:    n * 310,
		BytesWritten: n * 180,
		Connects:     100,
		Latency:      latency,
		Lateness:     lateness,
		Late:         1234,
		Status:       map[int]int64{200: n},
		Errors:       map[result.ErrorKind]int64{result.ErrReadTimeout: 50},
		Timeline:     seconds,
	}
}

// keepAliveOffRun opens a connection per request, so connect times are
// measured, and meets a few errors.
func keepAliveOffRun() *result.Result {
	latency, seconds := timeline(6, false, 96, func(s int) int64 { return int64(s % 2) }, func(s int, h *hdrhistogram.Histogram) {
		if s == 5 {
			record(h, 250, 700, 600, 300)
			return
		}
		record(h, 250, 1260, 600, 640, 1300, 240, 4800, 60)
	})
	connect := result.NewHistogram()
	record(connect, 60, 8000, 120, 2000, 1200, 990, 3000, 14)
	n := latency.TotalCount()
	return &result.Result{
		URL:          "http://10.0.0.7/health",
		Method:       "GET",
		Connections:  16,
		Loops:        1,
		Pipeline:     1,
		Start:        fixtureStart,
		Duration:     5500 * time.Millisecond,
		Requests:     n,
		BytesRead:    n * 96,
		BytesWritten: n * 40,
		Connects:     connect.TotalCount(),
		Reconnects:   connect.TotalCount() - 16,
		Latency:      latency,
		Connect:      connect,
		Lateness:     result.NewHistogram(),
		Status:       map[int]int64{200: n - 2, 404: 2},
		Errors:       map[result.ErrorKind]int64{result.ErrConnectRefused: 3, result.ErrReset: 1},
		Timeline:     seconds,
	}
}

// emptyInterruptedRun was stopped after 1.5s without a single response:
// the target refused every connection.
func emptyInterruptedRun() *result.Result {
	return &result.Result{
		URL:         "http://127.0.0.1:8081/",
		Method:      "GET",
		Connections: 50,
		Loops:       2,
		Pipeline:    1,
		KeepAlive:   true,
		Start:       fixtureStart,
		Duration:    1500 * time.Millisecond,
		Interrupted: true,
		Latency:     result.NewHistogram(),
		Connect:     result.NewHistogram(),
		Lateness:    result.NewHistogram(),
		Status:      map[int]int64{},
		Errors:      map[result.ErrorKind]int64{result.ErrConnectRefused: 1234, result.ErrConnectTimeout: 2},
		Timeline: []result.Second{
			{Second: 0, Errors: 800},
			{Second: 1, Errors: 436},
		},
	}
}

// failingWriter fails every write, to check that writers report errors.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// shardRun is shard i of a 3-way open-model run at 3000 req/s with 60
// connections (so 1000/s and 20 connections each), measured from start
// for dur, with per-second histograms and a few connect times.
func shardRun(i int, start time.Time, dur time.Duration, seconds int) *result.Result {
	latency, timeline := timeline(seconds, true, 120, noErrors, func(s int, h *hdrhistogram.Histogram) {
		record(h, 200+int64(50*i), 900, 800+int64(s), 90, 15000, 10)
	})
	lateness := result.NewHistogram()
	record(lateness, 30, latency.TotalCount())
	connect := result.NewHistogram()
	record(connect, 90+int64(i), 20)
	n := latency.TotalCount()
	return &result.Result{
		URL:          "http://gust-server.default.svc:8080/",
		Method:       "GET",
		Connections:  20,
		Loops:        2,
		Pipeline:     1,
		Rate:         1000,
		KeepAlive:    true,
		Shard:        result.Shard{Index: i, Count: 3},
		StartAt:      fixtureStart.Add(-time.Second),
		Start:        start,
		Duration:     dur,
		Requests:     n,
		BytesRead:    n * 120,
		BytesWritten: n * 60,
		Connects:     20,
		Latency:      latency,
		Connect:      connect,
		Lateness:     lateness,
		Status:       map[int]int64{200: n},
		Errors:       map[result.ErrorKind]int64{result.ErrReset: int64(i)},
		Timeline:     timeline,
	}
}

// mergedRun merges three shards: the first two on time, the third 1.2 s
// late and cut short.
func mergedRun() *result.Result {
	r, err := result.Merge([]result.Part{
		{Name: "agent-2.json", Result: shardRun(2, fixtureStart.Add(1200*time.Millisecond), 1800*time.Millisecond, 2)},
		{Name: "agent-0.json", Result: shardRun(0, fixtureStart, 3*time.Second, 3)},
		{Name: "agent-1.json", Result: shardRun(1, fixtureStart.Add(4*time.Millisecond), 3*time.Second, 3)},
	}, result.DefaultMaxSkew)
	if err != nil {
		panic(err)
	}
	return r
}

// http2Run is closedRun over HTTP/2 (h2c, 10 streams per connection) with
// streams reset, a GOAWAY, retries and a flow-control stall.
func http2Run() *result.Result {
	r := closedRun()
	r.Connections = 10
	r.Protocol = "h2c"
	r.HTTP2 = result.NewHTTP2(10)
	r.HTTP2.Resets["INTERNAL_ERROR"] = 7
	r.HTTP2.Resets["REFUSED_STREAM"] = 2
	r.HTTP2.GoAways["NO_ERROR"] = 1
	r.HTTP2.Retried = 4
	r.Errors = map[result.ErrorKind]int64{result.ErrStreamReset: 9, result.ErrFlowStall: 1}
	r.Connects, r.Reconnects = 11, 1
	return r
}

// judgedRun is openLateRun judged by thresholds of every kind: some pass,
// some fail, one cannot be measured.
func judgedRun() *result.Result {
	r := openLateRun()
	ts, err := result.ParseThresholds([]string{"p99<250ms", "p99.9 < 10ms", "mean<=1ms", "error_rate<0.1%", "rps>=9000", "late_rate<1%", "max<1s"})
	if err != nil {
		panic(err)
	}
	r.Thresholds = result.Judge(r, ts, result.StatusSet{})
	return r
}
