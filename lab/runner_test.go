package lab

import (
	"context"
	"math"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunnerMeasuresAFakeServer(t *testing.T) {
	if _, err := RaiseOpenFiles(); err != nil {
		t.Log(err)
	}
	cpus, _ := AllowedCPUs()
	srvCPUs, _ := SplitCPUs(cpus)
	if _, err := exec.LookPath("taskset"); err != nil {
		srvCPUs = nil // unpinned: the runner needs taskset to pin
	}
	r := &Runner{
		Servers: []Server{{Name: "fake", Command: fakeServerCommand(t)}},
		Scenarios: []Scenario{
			{Name: "ka", Connections: 200, Duration: Duration(time.Second), Warmup: Duration(200 * time.Millisecond)},
			// A handler slower than the readiness probe's 1 s must still start.
			{Name: "slow", Connections: 200, Delay: Duration(1200 * time.Millisecond), Duration: Duration(2500 * time.Millisecond)},
		},
		ServerCPUs: srvCPUs,
	}
	cells := r.Run(context.Background())
	if len(cells) != 2 {
		t.Fatalf("got %d cells, want 2", len(cells))
	}
	for _, c := range cells {
		if c.Error != "" {
			t.Fatalf("cell %s: %s", c.Scenario, c.Error)
		}
		if c.RPS <= 0 || c.Requests <= 0 {
			t.Errorf("cell %s: no requests measured: %+v", c.Scenario, c)
		}
		if c.CPUUsPerReq <= 0 || c.RSSPeakBytes <= 0 {
			t.Errorf("cell %s: server not sampled: cpu %v rss %v", c.Scenario, c.CPUUsPerReq, c.RSSPeakBytes)
		}
		if c.CPUKernelUsPerReq < 0 || c.CPUKernelUsPerReq > c.CPUUsPerReq {
			t.Errorf("cell %s: kernel CPU %v us/req, want between 0 and all of it (%v)", c.Scenario, c.CPUKernelUsPerReq, c.CPUUsPerReq)
		}
		if c.GoroutinesMax < 1 {
			t.Errorf("cell %s: goroutines not sampled: %d", c.Scenario, c.GoroutinesMax)
		}
	}
	slow := cells[1]
	if math.Abs(slow.IdealRPS-200/1.2) > 1e-6 {
		t.Errorf("ideal req/s = %v, want 200/1.2", slow.IdealRPS)
	}
	// Above the ideal is a measuring error; well below it, a runner that
	// lost requests. The lower bound is loose: the window holds about two
	// rounds of 1.2 s requests, and a busy machine delays the first.
	if slow.RPS > slow.IdealRPS*1.1 || slow.RPS < slow.IdealRPS/4 {
		t.Errorf("slow handler: %v req/s, ideal %v", slow.RPS, slow.IdealRPS)
	}
	if slow.GoroutinesMax < 200 {
		t.Errorf("slow handler at 200 connections: goroutines max %d, want at least 200", slow.GoroutinesMax)
	}
}

func TestRunnerRecordsFailuresAndGoesOn(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	sc := Scenario{Name: "ka", Connections: 10, Duration: Duration(300 * time.Millisecond)}
	r := &Runner{
		Servers: []Server{
			{Name: "exits", Command: "echo no such flag >&2; exit 1"},
			{Name: "refuses", URL: refused},
			{Name: "missing", Missing: "fasthttp: binary not built"},
			{Name: "silent", Command: "sleep 30"},
			{Name: "fake", Command: fakeServerCommand(t)},
		},
		Scenarios:    []Scenario{sc},
		StartTimeout: 500 * time.Millisecond,
	}
	start := time.Now()
	cells := r.Run(context.Background())
	if len(cells) != 5 {
		t.Fatalf("got %d cells, want 5", len(cells))
	}
	wants := []string{"exited before answering", "load " + refused, "binary not built", "did not answer", ""}
	for i, want := range wants {
		got := cells[i].Error
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: error %q, want it to say %q", cells[i].Server, got, want)
		}
	}
	if cells[4].RPS <= 0 {
		t.Errorf("the matrix did not go on: last cell %+v", cells[4])
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %s", took)
	}
}

func TestRepeatReportsTheMedian(t *testing.T) {
	r := &Runner{
		Servers:   []Server{{Name: "fake", Command: fakeServerCommand(t)}},
		Scenarios: []Scenario{{Name: "ka", Connections: 20, Duration: Duration(300 * time.Millisecond)}},
		Repeat:    3,
	}
	c := r.Run(context.Background())[0]
	if c.Error != "" {
		t.Fatal(c.Error)
	}
	if len(c.Repeats) != 3 {
		t.Fatalf("repeats %v, want 3", c.Repeats)
	}
	sorted := append([]float64(nil), c.Repeats...)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if sorted[j] < sorted[i] {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
	}
	if c.RPS != sorted[1] {
		t.Errorf("rps %v, want the median of %v", c.RPS, c.Repeats)
	}
}

func TestProfileListsTheTopByCumulativeTime(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command for go tool pprof")
	}
	dir := t.TempDir()
	r := &Runner{
		Servers:    []Server{{Name: "fake", Command: fakeServerCommand(t)}},
		Scenarios:  []Scenario{{Name: "ka", Connections: 50, Duration: Duration(time.Second)}},
		ProfileDir: dir,
	}
	c := r.Run(context.Background())[0]
	if c.Error != "" {
		t.Fatal(c.Error)
	}
	if c.Profile != filepath.Join(dir, "fake-ka.pb.gz") || len(c.ProfileTop) == 0 {
		t.Fatalf("profile %q, top %q", c.Profile, c.ProfileTop)
	}
	if !strings.Contains(strings.Join(c.ProfileTop, "\n"), "net/http") {
		t.Errorf("the top of a net/http server's profile names no net/http function:\n%s", strings.Join(c.ProfileTop, "\n"))
	}
}
