package result

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestLoopStatsMergeExactly checks that merging per-loop histograms and
// counters gives exactly what one histogram of all the values gives.

// agentResult is a synthetic agent's result: values recorded into its
// latency histogram and, second by second, into its timeline.
func agentResult(shard Shard, start time.Time, values [][]int64) *Result {
	r := &Result{URL: "http://127.0.0.1:8080/", Method: "GET", Connections: 2, Loops: 1, Pipeline: 1, Rate: 100, KeepAlive: true,
		Latency: NewHistogram(), Connect: NewHistogram(), Lateness: NewHistogram(), Status: make(map[int]int64), Errors: make(map[ErrorKind]int64)}
	r.Shard, r.Start, r.Duration = shard, start, time.Duration(len(values))*time.Second
	for s, vs := range values {
		h := NewHistogram()
		for _, v := range vs {
			h.RecordValue(v)
			r.Latency.RecordValue(v)
			r.Lateness.RecordValue(v / 10)
		}
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			panic(err)
		}
		r.Timeline = append(r.Timeline, Second{Second: s, Requests: int64(len(vs)), Hist: enc,
			P50us: h.ValueAtQuantile(50), P99us: h.ValueAtQuantile(99)})
		r.Requests += int64(len(vs))
		r.Status[200] += int64(len(vs))
	}
	r.Connect.RecordValue(100)
	r.Connects = 2
	return r
}

// TestMergeIsExact splits random values over four agents and checks that
// the merged result is exactly what one agent recording them all would
// have: the same histograms, counts and per-second percentiles.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const agents, seconds = 4, 3
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	values := make([][][]int64, agents)
	all := NewHistogram()
	perSecond := make([]*hdrhistogram.Histogram, seconds)
	for s := range perSecond {
		perSecond[s] = NewHistogram()
	}
	for a := range values {
		values[a] = make([][]int64, seconds)
		for s := range seconds {
			for range 2000 + rng.IntN(500) {
				v := 1 + rng.Int64N(50_000)
				if rng.IntN(100) == 0 {
					v *= 40 // a tail
				}
				values[a][s] = append(values[a][s], v)
				all.RecordValue(v)
				perSecond[s].RecordValue(v)
			}
		}
	}
	var parts []Part
	for a := range agents {
		// Agents start within a few ms of each other, in no order.
		at := start.Add(time.Duration(rng.IntN(5)) * time.Millisecond)
		parts = append(parts, Part{Name: fmt.Sprintf("agent-%d", a), Result: agentResult(Shard{a, agents}, at, values[a])})
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })

	m, err := Merge(parts, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Latency.Equals(all) {
		t.Error("merged latency histogram differs from one histogram of every value")
	}
	if m.Requests != all.TotalCount() || m.Status[200] != all.TotalCount() {
		t.Errorf("merged %d requests (%d with status 200), want %d", m.Requests, m.Status[200], all.TotalCount())
	}
	if m.Connections != 2*agents || m.Loops != agents || m.Rate != 100*agents || m.Connect.TotalCount() != agents {
		t.Errorf("merged %d connections on %d loops at %g/s with %d connect times; want the agents' sums",
			m.Connections, m.Loops, m.Rate, m.Connect.TotalCount())
	}
	if len(m.Timeline) != seconds {
		t.Fatalf("merged timeline has %d seconds, want %d", len(m.Timeline), seconds)
	}
	for s, sec := range m.Timeline {
		want := perSecond[s]
		if sec.Requests != want.TotalCount() || sec.P50us != want.ValueAtQuantile(50) || sec.P99us != want.ValueAtQuantile(99) {
			t.Errorf("second %d = %d requests, p50 %d, p99 %d; want %d, %d, %d", s, sec.Requests, sec.P50us, sec.P99us,
				want.TotalCount(), want.ValueAtQuantile(50), want.ValueAtQuantile(99))
		}
		h, err := hdrhistogram.Decode(sec.Hist)
		if err != nil || !h.Equals(want) {
			t.Errorf("second %d keeps a histogram that differs from its values (%v)", s, err)
		}
	}
	for i, a := range m.Agents {
		if a.Shard.Index != i || a.Flagged() {
			t.Errorf("agent row %d = %+v, want shard %d in order and nothing flagged", i, a, i)
		}
	}
	if !m.Start.Equal(start) && m.Start.Sub(start) >= 5*time.Millisecond {
		t.Errorf("merged start %v, want the earliest agent's", m.Start)
	}
}

// TestMergeFlagsSkew checks the agent rows of a run where one agent
// started late and one ran short, and that timelines are placed by start.
func TestMergeFlagsSkew(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	ten := [][]int64{{100}, {100}, {100}, {100}}
	parts := []Part{
		{"on-time", agentResult(Shard{0, 3}, start, ten)},
		{"late", agentResult(Shard{1, 3}, start.Add(2*time.Second), ten)},
		{"short", agentResult(Shard{2, 3}, start.Add(20*time.Millisecond), ten[:2])},
	}
	m, err := Merge(parts, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]bool{}
	for _, a := range m.Agents {
		got[a.Name] = [2]bool{a.Late, a.Short}
	}
	want := map[string][2]bool{"on-time": {false, false}, "late": {true, false}, "short": {false, true}}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s flagged late, short = %v, want %v", name, got[name], w)
		}
	}
	if m.Duration != 6*time.Second {
		t.Errorf("merged duration %s, want 6s: from the first start to the late agent's end", m.Duration)
	}
	// Seconds 0-1 have all three agents, 2-3 the on-time one and the late
	// one (its seconds 0-1), 4-5 the late one alone.
	wantReq := []int64{2, 2, 2, 2, 1, 1}
	for i, s := range m.Timeline {
		if i >= len(wantReq) || s.Requests != wantReq[i] {
			t.Errorf("timeline = %+v, want requests %v per second", m.Timeline, wantReq)
			break
		}
	}
	if _, err := Merge(parts, 3*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestMergeRefusesMismatches(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	one := [][]int64{{100, 200}}
	base := func(i int) *Result { return agentResult(Shard{i, 2}, start, one) }
	tests := []struct {
		name   string
		change func(b *Result)
		want   string
	}{
		{"another URL", func(b *Result) { b.URL = "http://127.0.0.1:9090/" }, "a targets http://127.0.0.1:8080/ but b targets http://127.0.0.1:9090/"},
		{"another method", func(b *Result) { b.Method = "POST" }, "a sends GET but b sends POST"},
		{"another pipeline depth", func(b *Result) { b.Pipeline = 8 }, "pipelines"},
		{"keep-alive off", func(b *Result) { b.KeepAlive = false }, "keep-alive"},
		{"the closed model", func(b *Result) { b.Rate = 0 }, "the closed model"},
		{"another shard count", func(b *Result) { b.Shard = Shard{1, 3} }, "a is shard 0/2 but b is shard 1/3"},
		{"a whole run", func(b *Result) { b.Shard = Shard{} }, "a whole run"},
		{"the same shard twice", func(b *Result) { b.Shard = Shard{0, 2} }, "both shard 0/2"},
		{"a replay", func(b *Result) { b.Speed, b.Endpoints = 1, []Endpoint{{Name: "GET /"}} }, "b is a replay's result: only gust load results can be merged"},
		{"a replay at a rate", func(b *Result) { b.Input = &Input{File: "access.log"} }, "b is a replay's result: only gust load results can be merged"},
		{"endpoints beside none", func(b *Result) {
			b.Endpoints = []Endpoint{{Name: "GET /", Requests: 2, Latency: NewEndpointHistogram()}}
		},
			"b has per-endpoint counts (gust load --targets) but a has none: only shares of one run can be merged"},
		{"HTTP/2 and HTTP/1.1", func(b *Result) { b.Protocol, b.HTTP2 = "h2c", NewHTTP2(10) }, "a speaks HTTP/1.1 but b speaks h2c"},
		{"auto and HTTP/1.1", func(b *Result) {
			b.Protocol, b.HTTP2, b.Protocols = ProtoAuto, NewHTTP2(1), map[string]int64{ProtoH2: 0, ProtoHTTP11: 2}
		}, "a speaks HTTP/1.1 but b speaks h2 or http/1.1 as ALPN chose (--proto auto)"},
		{"another precision", func(b *Result) {
			h := hdrhistogram.New(HistMin, HistMax, 2)
			h.RecordValue(100)
			h.RecordValue(200)
			b.Latency = h
		}, "b's latency histogram has 2 significant digits from 1 to 3600000000 but a's latency histogram has 3"},
		{"another range", func(b *Result) { b.Connect = hdrhistogram.New(HistMin, 1000, HistSigFigs) }, "b's connect histogram has 3 significant digits from 1 to 1000"},
		{"a second without its histogram", func(b *Result) { b.Timeline[0].Hist = nil }, "b: timeline second 0 has no histogram"},
		{"a corrupt second", func(b *Result) { b.Timeline[0].Hist = []byte("HISTFAAAAgarbage") }, "b: timeline second 0"},
		{"a second of another precision", func(b *Result) {
			h := hdrhistogram.New(HistMin, HistMax, 2)
			b.Timeline[0].Hist, _ = h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		}, "b: timeline second 0 has a histogram of 2 significant digits"},
		{"no result", func(b *Result) { *b = Result{} }, "no latency histogram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base(1)
			tt.change(b)
			_, err := Merge([]Part{{"a", base(0)}, {"b", b}}, DefaultMaxSkew)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
	if _, err := Merge(nil, DefaultMaxSkew); err == nil {
		t.Error("merging nothing returned no error")
	}
}

func TestMergeKeepsTheCommonStartAt(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	a, b := agentResult(Shard{0, 2}, start, [][]int64{{1}}), agentResult(Shard{1, 2}, start, [][]int64{{1}})
	a.StartAt, b.StartAt = start, start
	m, err := Merge([]Part{{"a", a}, {"b", b}}, DefaultMaxSkew)
	if err != nil || !m.StartAt.Equal(start) {
		t.Errorf("StartAt = %v (%v), want the agents' common %v", m.StartAt, err, start)
	}
	b.StartAt = start.Add(time.Second)
	m, err = Merge([]Part{{"a", a}, {"b", b}}, DefaultMaxSkew)
	if err != nil || !m.StartAt.IsZero() {
		t.Errorf("StartAt = %v (%v), want none when the agents' differ", m.StartAt, err)
	}
}

// TestMergeAddsHTTP2Counts: HTTP/2 agents' resets, GOAWAYs and retries add
// up by code, and agents with different streams per connection are not
// one run.
func TestMergeAddsHTTP2Counts(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	one := [][]int64{{100, 200}}
	h2 := func(i, streams int, resets, goAways map[string]int64, retried int64) *Result {
		r := agentResult(Shard{i, 2}, start, one)
		r.Protocol, r.HTTP2 = "h2c", NewHTTP2(streams)
		r.HTTP2.Resets, r.HTTP2.GoAways, r.HTTP2.Retried = resets, goAways, retried
		r.Errors[ErrStreamReset] = 0
		for _, n := range resets {
			r.Errors[ErrStreamReset] += n
		}
		return r
	}
	a := h2(0, 10, map[string]int64{"CANCEL": 2}, map[string]int64{"NO_ERROR": 1}, 3)
	b := h2(1, 10, map[string]int64{"CANCEL": 1, "INTERNAL_ERROR": 4}, map[string]int64{}, 2)
	m, err := Merge([]Part{{"a", a}, {"b", b}}, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want := &HTTP2{Streams: 10, Resets: map[string]int64{"CANCEL": 3, "INTERNAL_ERROR": 4}, GoAways: map[string]int64{"NO_ERROR": 1}, Retried: 5}
	if m.Protocol != "h2c" || !reflect.DeepEqual(m.HTTP2, want) || m.Errors[ErrStreamReset] != 7 {
		t.Errorf("merged %q %+v, stream resets %d; want h2c %+v, 7", m.Protocol, m.HTTP2, m.Errors[ErrStreamReset], want)
	}
	c := h2(1, 100, nil, nil, 0)
	if _, err := Merge([]Part{{"a", a}, {"c", c}}, DefaultMaxSkew); err == nil || !strings.Contains(err.Error(), "a keeps 10 streams per connection but c keeps 100") {
		t.Errorf("err = %v, want streams per connection refused", err)
	}
}

// TestMergeAddsProtocolCounts: the connections per protocol of --proto
// auto agents add up, even when one agent got no h2 at all, and an auto
// agent is not merged with an h2 one.
func TestMergeAddsProtocolCounts(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	auto := func(i int, h2, h1 int64) *Result {
		r := agentResult(Shard{i, 2}, start, [][]int64{{100, 200}})
		r.URL = "https://127.0.0.1:8443/"
		r.Protocol, r.HTTP2 = ProtoAuto, NewHTTP2(10)
		r.Protocols = map[string]int64{ProtoH2: h2, ProtoHTTP11: h1}
		return r
	}
	m, err := Merge([]Part{{"a", auto(0, 3, 1)}, {"b", auto(1, 0, 2)}}, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{ProtoH2: 3, ProtoHTTP11: 3}
	if m.Protocol != ProtoAuto || !maps.Equal(m.Protocols, want) || m.HTTP2 == nil || m.HTTP2.Streams != 10 || !m.SpokeHTTP2() {
		t.Errorf("merged %q %v %+v; want auto %v, 10 streams, HTTP/2 spoken", m.Protocol, m.Protocols, m.HTTP2, want)
	}
	h2 := auto(1, 0, 0)
	h2.Protocol, h2.Protocols = ProtoH2, nil
	_, err = Merge([]Part{{"a", auto(0, 3, 1)}, {"b", h2}}, DefaultMaxSkew)
	if err == nil || !strings.Contains(err.Error(), "a speaks h2 or http/1.1 as ALPN chose (--proto auto) but b speaks h2") {
		t.Errorf("err = %v, want auto and h2 agents refused", err)
	}
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q spans lines", err)
	}
	// A single run's loops add up through Add the same way, and a run
	// that negotiated nothing keeps Protocols nil.
	out := &Result{Latency: NewHistogram(), Connect: NewHistogram(), Lateness: NewHistogram(), Status: map[int]int64{}, Errors: map[ErrorKind]int64{}}
	out.Add(agentResult(Shard{}, start, nil))
	if out.Protocols != nil {
		t.Errorf("protocols %v after adding a plain result, want nil", out.Protocols)
	}
}

func TestMergeFlagsAnAgentBehindItsSchedule(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	// agentResult's rate is 100/s: 4 seconds are 400 requests.
	second := func(n int) []int64 { return slices.Repeat([]int64{100}, n) }
	full := [][]int64{second(100), second(100), second(100), second(100)}
	nearly := [][]int64{second(100), second(100), second(100), second(97)}
	cut := [][]int64{second(100), second(100), nil, nil}
	parts := []Part{
		{"full", agentResult(Shard{0, 3}, start, full)},
		{"nearly", agentResult(Shard{1, 3}, start, nearly)},
		{"cut", agentResult(Shard{2, 3}, start, cut)},
	}
	m, err := Merge(parts, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"full": false, "nearly": false, "cut": true}
	for _, a := range m.Agents {
		if a.Short != want[a.Name] || a.Late {
			t.Errorf("%s (%d responses in %s) flagged short %v, late %v; want short %v, late false",
				a.Name, a.Requests, a.Duration, a.Short, a.Late, want[a.Name])
		}
	}
	// The closed model has no schedule: the same counts flag nothing.
	for _, p := range parts {
		p.Result.Rate = 0
	}
	if m, err = Merge(parts, DefaultMaxSkew); err != nil {
		t.Fatal(err)
	}
	for _, a := range m.Agents {
		if a.Flagged() {
			t.Errorf("closed model: %s flagged (%+v), want nothing flagged", a.Name, a)
		}
	}
}
