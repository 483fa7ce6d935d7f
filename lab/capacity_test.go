package lab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCapacityScenariosParse(t *testing.T) {
	sc, err := LoadScenarios("scenarios/capacity.json")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, s := range sc {
		if s.Capacity != nil {
			found = append(found, s.Name+": "+s.Group())
		}
	}
	want := []string{"capacity-p99-10ms-200: keep-alive, sustainable at p99<10ms", "capacity-p99-10ms-2000: keep-alive, sustainable at p99<10ms"}
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Errorf("capacity scenarios %q, want %q", found, want)
	}
	for _, tc := range []struct{ file, want string }{
		{`{"scenarios": [{"name": "x", "connections": 5, "duration": "1s", "capacity": {}}]}`, "needs an slo"},
		{`{"scenarios": [{"name": "x", "connections": 5, "duration": "1s", "capacity": {"slo": ["p99<10"]}}]}`, "with a unit"},
		{`{"scenarios": [{"name": "x", "connections": 5, "duration": "1s", "capacity": {"slo": ["p99<10ms"], "precision": 2}}]}`, "precision"},
	} {
		if _, err := ParseScenarios([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line with %q", tc.file, err, tc.want)
		}
	}
	capCell := Scenario{Name: "c", Connections: 1, Duration: Duration(time.Second), Capacity: &CapacitySearch{SLO: []string{"p99<10ms"}}}
	for _, name := range []string{"wrk", "hey", "ab"} {
		if err := toolCannot(name, capCell); err == nil || !strings.Contains(err.Error(), "--loader gust") {
			t.Errorf("%s: %v, want a capacity cell refused", name, err)
		}
	}
	if _, err := (H2load{}).Load(context.Background(), "http://127.0.0.1:1/", capCell); err == nil {
		t.Error("h2load ran a capacity cell")
	}
}

// TestGustLoaderSearchesCapacity runs a capacity cell against a fast
// server with a budget that ends the search while rates still rise: the
// cell describes the highest rate met.
func TestGustLoaderSearchesCapacity(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	sc := Scenario{Name: "cap", Connections: 10, Duration: Duration(300 * time.Millisecond), Warmup: Duration(100 * time.Millisecond),
		Capacity: &CapacitySearch{SLO: []string{"p50<1s"}, Start: 50, MaxTime: Duration(1500 * time.Millisecond)}}
	lr, err := GustLoader{Loops: 1}.Load(context.Background(), srv.URL, sc)
	if err != nil {
		t.Fatal(err)
	}
	if lr.CapacitySteps < 2 || lr.CapacityRate < 100 || lr.Requests == 0 || lr.RPS < lr.CapacityRate*0.95 || lr.P99 <= 0 {
		t.Errorf("capacity cell %+v, want at least two steps and the best one described", lr)
	}
	// An objective nothing meets fails the cell with the reason.
	sc.Capacity = &CapacitySearch{SLO: []string{"p50<1us"}, Start: 4, MaxTime: Duration(1500 * time.Millisecond)}
	if _, err := (GustLoader{Loops: 1}).Load(context.Background(), srv.URL, sc); err == nil || !strings.Contains(err.Error(), "no rate met p50<1us") {
		t.Errorf("err %v, want no rate met", err)
	}
}
