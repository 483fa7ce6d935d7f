package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat;
// it is 100 on every Linux gust runs on.
const clockTicks = 100

// cpuTicks returns utime+stime of pid in clock ticks, and of them stime
// (time in the kernel on the process's behalf).
func cpuTicks(pid int) (total, kernel int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name may hold spaces: fields count from after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	// Fields 14 and 15 of stat; f[0] is field 3 (state).
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: bad utime/stime", pid)
	}
	return u + s, s, nil
}

// statusKB returns a "Name: N kB" field of /proc/PID/status in bytes.
func statusKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}

// expvars is what gust bench reads from a server's /debug/vars.
type expvars struct {
	Goroutines int64 `json:"goroutines"`
	Memstats   struct {
		NumGC        int64 `json:"NumGC"`
		PauseTotalNs int64 `json:"PauseTotalNs"`
	} `json:"memstats"`
}

func readExpvars(ctx context.Context, client *http.Client, debug string) (*expvars, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+debug+"/debug/vars", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v expvars
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return nil, fmt.Errorf("/debug/vars: %w", err)
	}
	return &v, nil
}

// cpuSample is a process's CPU ticks at a moment, and of them those in
// the kernel.
type cpuSample struct {
	at            time.Time
	ticks, kernel int64
}

// sampler polls a server's CPU ticks and expvars while a cell runs.
type sampler struct {
	pid   int
	debug string // "" when the server has no debug listener

	mu      sync.Mutex
	cpu     []cpuSample
	gmax    int64
	first   *expvars
	last    *expvars
	stopped chan struct{}
}

// startSampler samples every interval until ctx is done; wait for the
// stopped channel before reading the results.
func startSampler(ctx context.Context, pid int, debug string, interval time.Duration) *sampler {
	s := &sampler{pid: pid, debug: debug, gmax: -1, stopped: make(chan struct{})}
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	// CPU and expvars are sampled apart: a saturated server may take a
	// while to answer /debug/vars, and the CPU samples must stay regular.
	var wg sync.WaitGroup
	every := func(f func()) {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			f()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}
	wg.Add(2)
	go every(s.sampleCPU)
	go every(func() { s.sampleVars(ctx, client) })
	go func() { wg.Wait(); close(s.stopped) }()
	return s
}

func (s *sampler) sampleCPU() {
	if s.pid <= 0 {
		return
	}
	if ticks, kernel, err := cpuTicks(s.pid); err == nil {
		s.mu.Lock()
		s.cpu = append(s.cpu, cpuSample{time.Now(), ticks, kernel})
		s.mu.Unlock()
	}
}

func (s *sampler) sampleVars(ctx context.Context, client *http.Client) {
	if s.debug == "" {
		return
	}
	v, err := readExpvars(ctx, client, s.debug)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.first == nil {
		s.first = v
	}
	s.last = v
	s.gmax = max(s.gmax, v.Goroutines)
	s.mu.Unlock()
}

// cpuOver returns the CPU ticks used between the first sample at or after
// from and the last one at or before to, those of them in the kernel, and
// the time between them.
func (s *sampler) cpuOver(from, to time.Time) (ticks, kernel int64, span time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var a, b *cpuSample
	for i := range s.cpu {
		c := &s.cpu[i]
		if a == nil && !c.at.Before(from) {
			a = c
		}
		if !c.at.After(to) {
			b = c
		}
	}
	if a == nil || b == nil || !b.at.After(a.at) {
		return 0, 0, 0, false
	}
	return b.ticks - a.ticks, b.kernel - a.kernel, b.at.Sub(a.at), true
}
