package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// countingServer answers 200 and counts requests by method and target,
// and by the X-User header when there is one.
func countingServer(t *testing.T) (*httptest.Server, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.RequestURI()]++
		if u := r.Header.Get("X-User"); u != "" {
			seen["user "+u]++
		}
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := make(map[string]int, len(seen))
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// TestLoopsPickRequestData runs request data that never runs out on two
// loops, as the loops pick it (no feeder): the requests go out in their
// weights, every row is used, the endpoints count what the server saw,
// and the open models (a rate, stages) take request data too.
func TestLoopsPickRequestData(t *testing.T) {
	rows := [][]string{{"1", "ada"}, {"2", "grace"}, {"3", "barbara"}, {"4", "frances"}, {"5", "hedy"}}
	reqs := []RequestTemplate{
		{Target: "/a", Weight: 2},
		{Method: "POST", Target: "/b", Body: "x", Weight: 1},
		{Target: "/users/{{id}}", Header: [][2]string{{"X-User", "{{name}}"}}, Weight: 1},
	}
	cases := []struct {
		name  string
		order Order
		set   func(*Config)
	}{
		{"closed, weighted", WeightedOrder, func(c *Config) { c.Requests = 2000 }},
		{"closed, random", RandomOrder, func(c *Config) { c.Requests = 2000 }},
		{"a rate", WeightedOrder, func(c *Config) { c.Rate = 2000; c.Duration = time.Second }},
		{"stages", WeightedOrder, func(c *Config) { c.Stages = []Stage{{Duration: time.Second, Target: 2000}} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, seen := countingServer(t)
			src, err := NewDataSource(DataConfig{Host: srv.Listener.Addr().String(), Requests: reqs, Order: tc.order,
				Data: &Data{Name: "u.csv", Columns: []string{"id", "name"}, Rows: rows}, Loop: true, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{URL: srv.URL + "/", Source: src, Connections: 8, Loops: 2, Timeout: 5 * time.Second}
			tc.set(&cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := seen()
			total := got["GET /a"] + got["POST /b"]
			users := 0
			for _, r := range rows {
				n := got["GET /users/"+r[0]]
				if n == 0 || got["user "+r[1]] != n {
					t.Errorf("row %v: %d requests, %d with its X-User: every row is used, each filled whole", r, n, got["user "+r[1]])
				}
				users += n
			}
			total += users
			// The server may have seen a request per connection more: those
			// in flight when the run ended, not counted as responses.
			if total < 900 || int64(total) < res.Requests || int64(total) > res.Requests+int64(cfg.Connections) {
				t.Fatalf("server saw %d requests, result says %d responses on %d connections", total, res.Requests, cfg.Connections)
			}
			// Weights 2:1:1, within 10% of the total.
			for _, w := range []struct {
				what string
				n    int
				want float64
			}{{"GET /a", got["GET /a"], 0.5}, {"POST /b", got["POST /b"], 0.25}, {"users", users, 0.25}} {
				if share := float64(w.n) / float64(total); share < w.want-0.1 || share > w.want+0.1 {
					t.Errorf("%s: %.2f of the requests, want about %.2f", w.what, share, w.want)
				}
			}
			if len(res.Endpoints) != 3 {
				t.Fatalf("%d endpoints, want 3", len(res.Endpoints))
			}
			var sum int64
			for _, ep := range res.Endpoints {
				sum += ep.Requests
				if ep.Latency.TotalCount() != ep.Requests {
					t.Errorf("%s: %d latencies for %d responses", ep.Name, ep.Latency.TotalCount(), ep.Requests)
				}
			}
			if sum != res.Requests || res.ErrorCount() != 0 {
				t.Errorf("endpoints add to %d of %d responses, %d errors", sum, res.Requests, res.ErrorCount())
			}
			if n, _ := src.RowsUsed(); n < int64(users) {
				t.Errorf("RowsUsed %d, below the %d rows the server saw", n, users)
			}
		})
	}
}

// TestDataThatRunsOutStaysWithTheFeeder: rows without Loop end the run
// when used up, which the feeder's end of stream carries; stages cannot
// take them.
func TestDataThatRunsOutStaysWithTheFeeder(t *testing.T) {
	src, err := NewDataSource(DataConfig{Host: "h", Requests: []RequestTemplate{{Target: "/u/{{id}}"}},
		Data: &Data{Name: "u.csv", Columns: []string{"id"}, Rows: [][]string{{"1"}, {"2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if pickable(src) || src.pickers(2) != nil {
		t.Fatal("rows that run out were given to pickers")
	}
	cfg := Config{URL: "http://127.0.0.1:1/", Source: src, Stages: []Stage{{Duration: time.Second, Target: 10}}, Connections: 1, Loops: 1}
	if _, err := newEngine(cfg); err == nil {
		t.Fatal("stages took request data that runs out")
	}
}
