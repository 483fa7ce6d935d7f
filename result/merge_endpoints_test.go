package result

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// targetsShard is a synthetic shard of a --targets run: agentResult with
// endpoints, each given its latencies, the run's counts made to agree.
func targetsShard(shard Shard, start time.Time, eps map[string][]int64, order ...string) *Result {
	var all []int64
	for _, name := range order {
		all = append(all, eps[name]...)
	}
	r := agentResult(shard, start, [][]int64{all})
	r.Method = ""
	for _, name := range order {
		h := NewEndpointHistogram()
		for _, v := range eps[name] {
			h.RecordValue(v)
		}
		r.Endpoints = append(r.Endpoints, Endpoint{Name: name, Requests: int64(len(eps[name])), Errors: 1, Status5xx: int64(len(name) % 3), Latency: h})
		r.Errors[ErrReadTimeout]++
	}
	return r
}

// TestMergeAddsEndpointsByName splits random latencies of three endpoints
// over shards, some of which never picked the rare one, and checks that
// each merged endpoint is exactly the sum of the shards' and that the
// order is the first part's, then new names as they appear.
func TestMergeAddsEndpointsByName(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		orders [][]string // each shard's endpoints, in its order
		want   []string
	}{
		{"same endpoints, same order", [][]string{{"GET /a", "POST /b"}, {"GET /a", "POST /b"}}, []string{"GET /a", "POST /b"}},
		{"same endpoints, another order (as -o json sorts them)", [][]string{{"POST /b", "GET /a"}, {"GET /a", "POST /b"}}, []string{"POST /b", "GET /a"}},
		{"a rare endpoint in the second shard only", [][]string{{"GET /a", "POST /b"}, {"GET /a", "GET /rare", "POST /b"}, {"POST /b"}},
			[]string{"GET /a", "POST /b", "GET /rare"}},
		{"a rare endpoint in the first shard only", [][]string{{"GET /rare", "GET /a"}, {"GET /a"}}, []string{"GET /rare", "GET /a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tt.orders))))
			sum := map[string]*Endpoint{}
			var parts []Part
			for i, order := range tt.orders {
				eps := map[string][]int64{}
				for _, name := range order {
					for range 50 + rng.IntN(200) {
						eps[name] = append(eps[name], 1+rng.Int64N(100_000))
					}
				}
				r := targetsShard(Shard{i, len(tt.orders)}, start, eps, order...)
				for _, ep := range r.Endpoints {
					s := sum[ep.Name]
					if s == nil {
						s = &Endpoint{Name: ep.Name, Latency: NewEndpointHistogram()}
						sum[ep.Name] = s
					}
					s.Requests += ep.Requests
					s.Errors += ep.Errors
					s.Status5xx += ep.Status5xx
					s.Latency.Merge(ep.Latency)
				}
				parts = append(parts, Part{Name: fmt.Sprintf("agent-%d", i), Result: r})
			}
			m, err := Merge(parts, DefaultMaxSkew)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var requests int64
			for _, ep := range m.Endpoints {
				names = append(names, ep.Name)
				requests += ep.Requests
				w := sum[ep.Name]
				if ep.Requests != w.Requests || ep.Errors != w.Errors || ep.Status5xx != w.Status5xx {
					t.Errorf("%s: merged %d requests, %d errors, %d 5xx; want %d, %d, %d",
						ep.Name, ep.Requests, ep.Errors, ep.Status5xx, w.Requests, w.Errors, w.Status5xx)
				}
				if !ep.Latency.Equals(w.Latency) || ep.Latency.TotalCount() != w.Requests {
					t.Errorf("%s: merged histogram holds %d values (p99 %d), want %d (p99 %d)", ep.Name,
						ep.Latency.TotalCount(), ep.Latency.ValueAtQuantile(99), w.Latency.TotalCount(), w.Latency.ValueAtQuantile(99))
				}
				if ep.Latency.SignificantFigures() != EndpointSigFigs {
					t.Errorf("%s: merged histogram has %d significant digits, want %d", ep.Name, ep.Latency.SignificantFigures(), EndpointSigFigs)
				}
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("merged endpoints %q, want %q", names, tt.want)
			}
			if requests != m.Requests {
				t.Errorf("endpoints add up to %d requests, the merged run has %d", requests, m.Requests)
			}
		})
	}
}

// TestMergeFoldsEndpointsOfOneName checks that two endpoints of one name in
// a part (two lines of a targets file alike but for their bodies) merge
// into one row holding both.
func TestMergeFoldsEndpointsOfOneName(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	a := targetsShard(Shard{0, 2}, start, map[string][]int64{"POST /x": {100, 200}}, "POST /x")
	a.Endpoints = append(a.Endpoints, a.Endpoints[0])
	b := targetsShard(Shard{1, 2}, start, map[string][]int64{"POST /x": {300}}, "POST /x")
	m, err := Merge([]Part{{"a", a}, {"b", b}}, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Endpoints) != 1 || m.Endpoints[0].Requests != 5 || m.Endpoints[0].Latency.TotalCount() != 5 {
		t.Errorf("merged %+v, want one POST /x with 5 requests in its histogram", m.Endpoints)
	}
}

// TestMergeRefusesEndpointMismatches checks the one-line errors for parts
// whose endpoints cannot be shares of one --targets run.
func TestMergeRefusesEndpointMismatches(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	eps := map[string][]int64{"GET /a": {100, 200}}
	shard := func(i int) *Result { return targetsShard(Shard{i, 2}, start, eps, "GET /a") }
	plain := func(i int) *Result {
		r := agentResult(Shard{i, 2}, start, [][]int64{{100, 200}})
		r.Method = ""
		return r
	}
	tests := []struct {
		name string
		a, b *Result
		want string
	}{
		{"endpoints, then none", shard(0), plain(1), "a has per-endpoint counts (gust load --targets) but b has none: only shares of one run can be merged"},
		{"none, then endpoints", plain(0), shard(1), "b has per-endpoint counts (gust load --targets) but a has none: only shares of one run can be merged"},
		{"none, with errors only", shard(0), func() *Result {
			r := plain(1)
			r.Requests, r.Latency, r.Timeline, r.Status = 0, NewHistogram(), nil, map[int]int64{}
			r.Errors[ErrConnectRefused] = 3
			return r
		}(), "a has per-endpoint counts (gust load --targets) but b has none"},
		{"a replay with endpoints", shard(0), func() *Result { r := shard(1); r.Speed = 1; return r }(), "b is a replay's result: only gust load results can be merged"},
		{"an endpoint histogram of another precision", shard(0), func() *Result {
			r := shard(1)
			h := hdrhistogram.New(HistMin, HistMax, HistSigFigs)
			h.RecordValue(100)
			h.RecordValue(200)
			r.Endpoints[0].Latency = h
			return r
		}(), `b's histogram of "GET /a" has 3 significant digits from 1 to 3600000000 but a's of "GET /a" has 2 significant digits`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge([]Part{{"a", tt.a}, {"b", tt.b}}, DefaultMaxSkew)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
	// A shard that measured nothing lists no endpoints, and merges.
	empty := plain(1)
	empty.Requests, empty.Latency, empty.Timeline, empty.Status = 0, NewHistogram(), nil, map[int]int64{}
	m, err := Merge([]Part{{"a", shard(0)}, {"b", empty}}, DefaultMaxSkew)
	if err != nil {
		t.Fatalf("a shard that measured nothing: %v", err)
	}
	if len(m.Endpoints) != 1 || m.Endpoints[0].Requests != 2 {
		t.Errorf("merged endpoints %+v, want GET /a with 2 requests", m.Endpoints)
	}
}
