package lab

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Cell is the outcome of one (server, scenario) pair: the median of its
// repeats by req/s, or the reason it could not run.
type Cell struct {
	Server      string  `json:"server"`
	Scenario    string  `json:"scenario"`
	Group       string  `json:"group"`
	Connections int     `json:"connections"`
	KeepAlive   bool    `json:"keepalive"`
	Pipeline    int     `json:"pipeline"`
	DelayMS     float64 `json:"delay_ms"`
	Loader      string  `json:"loader"`
	// Mode is what the server served (Scenario.Mode); Streams the HTTP/2
	// streams per connection, 0 for HTTP/1.1.
	Mode    string `json:"mode,omitempty"`
	Streams int    `json:"streams,omitempty"`

	RPS float64 `json:"rps"`
	// IdealRPS is connections/delay for a delayed handler (Little's law), else 0.
	IdealRPS  float64   `json:"ideal_rps,omitempty"`
	Requests  int64     `json:"requests"`
	DurationS float64   `json:"duration_s"`
	Latency   Latencies `json:"latency_us"`
	Errors    int64     `json:"errors"`

	// Server-side samples; -1 when unknown (a --target has no PID, a server
	// without {debug} has no expvars).
	CPUUsPerReq float64 `json:"cpu_us_per_req"`
	// CPUKernelUsPerReq is the part of CPUUsPerReq spent in the kernel
	// (stime): on loopback most of it is TCP, the same for every server.
	CPUKernelUsPerReq float64 `json:"cpu_kernel_us_per_req"`
	CPUPercent        float64 `json:"cpu_percent"`
	RSSPeakBytes      int64   `json:"rss_peak_bytes"`
	RSSPerConnByte    int64   `json:"rss_per_conn_bytes"`
	GoroutinesMax     int64   `json:"goroutines_max"`
	GCCount           int64   `json:"gc_count"`
	GCPauseTotalUs    int64   `json:"gc_pause_total_us"`

	// Profile is the CPU profile's file (with Runner.ProfileDir) and
	// ProfileTop its first entries by cumulative time (pprof -top -cum).
	Profile    string   `json:"profile,omitempty"`
	ProfileTop []string `json:"profile_top,omitempty"`

	// Attack names the scenario's attack ("5000 slowloris"), and
	// AttackStats says what it did; empty without one.
	Attack      string       `json:"attack,omitempty"`
	AttackStats *AttackStats `json:"attack_stats,omitempty"`

	// CapacityRate, for a capacity scenario, is the highest open-model
	// rate that met its objective (then RPS, Latency and the samples are
	// the step at that rate's), found in CapacitySteps steps.
	CapacityRate float64 `json:"capacity_rate,omitempty"`
	// Hold, for a cell that held connections (a WebSocket hold), says
	// so, and Held is how many it held to the end: such a cell has no
	// request rate, latency or CPU per request, only CPU % and memory.
	Hold          bool  `json:"hold,omitempty"`
	Held          int64 `json:"held,omitempty"`
	CapacitySteps int   `json:"capacity_steps,omitempty"`

	// Repeats holds the req/s of every repeat, in order.
	Repeats []float64 `json:"repeats_rps,omitempty"`
	// Error says why the cell has no numbers; empty when it ran.
	Error string `json:"error,omitempty"`
}

// Latencies are percentiles in microseconds; -1 when the loader does not report one.
type Latencies struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// Runner runs every scenario against every server.
type Runner struct {
	Servers   []Server
	Scenarios []Scenario
	// Loader drives the load (default: GustLoader in-process).
	Loader Loader
	// ServerCPUs is the CPU set servers are pinned to with taskset, and
	// their GOMAXPROCS; empty means unpinned.
	ServerCPUs CPUSet
	// Repeat runs each cell this many times, each with a fresh server (default 1).
	Repeat int
	// StartTimeout bounds how long a server may take to answer (default 10s).
	StartTimeout time.Duration
	// ProfileDir, if set, is where a CPU profile of each server during
	// each cell's measured part is written (servers with {debug} only).
	ProfileDir string
	// OnCell, if set, is called after each cell with its index (from 0) and total.
	OnCell func(c Cell, i, total int)
	// OnStart, if set, is called before each cell.
	OnStart func(server string, sc Scenario, i, total int)
}

// Run runs the matrix, scenario by scenario, and returns one Cell per
// (server, scenario). A cell that fails records its error and the matrix
// goes on; Run stops early only when ctx is done.
func (r *Runner) Run(ctx context.Context) []Cell {
	var cells []Cell
	total := 0
	for _, sc := range r.Scenarios {
		for _, srv := range r.Servers {
			if runs(srv, sc) {
				total++
			}
		}
	}
	for _, sc := range r.Scenarios {
		for _, srv := range r.Servers {
			if !runs(srv, sc) {
				continue
			}
			if ctx.Err() != nil {
				return cells
			}
			i := len(cells)
			if r.OnStart != nil {
				r.OnStart(srv.Name, sc, i, total)
			}
			c := r.runCell(ctx, srv, sc)
			cells = append(cells, c)
			if r.OnCell != nil {
				r.OnCell(c, i, total)
			}
		}
	}
	return cells
}

func (r *Runner) loader() Loader {
	if r.Loader == nil {
		return GustLoader{}
	}
	return r.Loader
}

func (r *Runner) runCell(ctx context.Context, srv Server, sc Scenario) Cell {
	base := Cell{
		Server: srv.Name, Scenario: sc.Name, Group: sc.Group(), Connections: sc.Connections,
		KeepAlive: sc.KeepAliveOn(), Pipeline: sc.PipelineDepth(),
		DelayMS:  float64(time.Duration(sc.Delay)) / float64(time.Millisecond),
		Loader:   r.loader().Name(),
		IdealRPS: sc.IdealRPS(),
		Streams:  sc.Streams(),
	}
	if m := sc.Mode(); m != ModeHTTP1 {
		base.Mode = m
	}
	if sc.Attack != nil {
		base.Attack = fmt.Sprintf("%d %s", sc.Attack.Connections, sc.Attack.Kind)
		if sc.Attack.Sink {
			base.Attack += " (at a sink, a control)"
		}
	}
	if srv.Missing != "" {
		base.Error = srv.Missing
		return base
	}
	var runs []Cell
	for range max(r.Repeat, 1) {
		c := base
		if err := r.runOnce(ctx, srv, sc, &c); err != nil {
			c.Error = err.Error()
			return c // a repeat that fails makes the cell fail: its median would mislead
		}
		runs = append(runs, c)
	}
	slices.SortStableFunc(runs, func(a, b Cell) int {
		switch {
		case a.RPS < b.RPS:
			return -1
		case a.RPS > b.RPS:
			return 1
		}
		return 0
	})
	med := runs[(len(runs)-1)/2]
	for _, c := range runs {
		med.Repeats = append(med.Repeats, c.RPS)
	}
	if len(med.Repeats) == 1 {
		med.Repeats = nil
	}
	return med
}

// runOnce starts the server (unless it is a target), loads it, samples it
// and stops it.
func (r *Runner) runOnce(ctx context.Context, srv Server, sc Scenario, c *Cell) error {
	c.CPUUsPerReq, c.CPUKernelUsPerReq, c.CPUPercent, c.RSSPeakBytes, c.RSSPerConnByte = -1, -1, -1, -1, -1
	c.GoroutinesMax, c.GCCount, c.GCPauseTotalUs = -1, -1, -1
	url := srv.URL
	pid, debug := 0, ""
	if srv.URL != "" {
		if err := targetFits(srv.Name, srv.URL, sc.Mode()); err != nil {
			return err
		}
	} else {
		root := ""
		if sc.File != nil {
			dir, err := writeFileRoot(sc.File)
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			root = dir
		}
		p, err := r.start(ctx, srv, sc, root)
		if err != nil {
			return err
		}
		defer p.stop()
		pid, url = p.cmd.Process.Pid, sc.Scheme()+"://"+p.addr+"/"
		if sc.File != nil {
			url += sc.File.fileName()
		}
		if srv.hasDebug() {
			debug = p.debug
		}
	}
	var rssBase int64 = -1
	if pid > 0 {
		rssBase, _ = statusKB(pid, "VmRSS")
	}
	var at *attacker
	if sc.Attack != nil {
		u, err := neturl.Parse(url)
		if err != nil {
			return fmt.Errorf("attack: %w", err)
		}
		// The load connects in the first moments of its warmup; the attack
		// comes once those connections are up.
		target := u.Host
		if sc.Attack.Sink {
			sctx, stopSink := context.WithCancel(ctx)
			defer stopSink()
			if target, err = startSink(sctx); err != nil {
				return err
			}
		}
		at = startAttack(ctx, *sc.Attack, target, min(time.Duration(sc.Warmup)/2, time.Second))
	}
	sctx, stopSampling := context.WithCancel(ctx)
	s := startSampler(sctx, pid, debug, 100*time.Millisecond)
	type profiled struct {
		path string
		err  error
	}
	var prof chan profiled
	if r.ProfileDir != "" && debug != "" {
		prof = make(chan profiled, 1)
		go func() {
			p, err := captureProfile(sctx, debug, r.ProfileDir, srv.Name+"-"+sc.Name, sc)
			prof <- profiled{p, err}
		}()
	}
	res, err := r.loader().Load(ctx, url, sc)
	if at != nil {
		st := at.stop()
		c.AttackStats = &st
	}
	if prof != nil && err == nil {
		// The profile covers the measured part; wait for it before stopping the server.
		select {
		case p := <-prof:
			c.Profile = p.path
			if p.err != nil {
				c.ProfileTop = []string{"no profile: " + p.err.Error()}
			} else if top, err := profileTop(p.path); err != nil {
				c.ProfileTop = []string{err.Error()}
			} else {
				c.ProfileTop = top
			}
		case <-time.After(15 * time.Second):
			c.ProfileTop = []string{"no profile: the server did not send it in time"}
		}
	}
	var hwm int64 = -1
	if pid > 0 {
		if v, err := statusKB(pid, "VmHWM"); err == nil {
			hwm = v
		}
	}
	stopSampling()
	<-s.stopped
	if err != nil {
		return fmt.Errorf("load %s: %w", url, err)
	}
	c.RPS, c.Requests, c.DurationS, c.Errors = res.RPS, res.Requests, res.Duration.Seconds(), res.Errors
	c.CapacityRate, c.CapacitySteps = res.CapacityRate, res.CapacitySteps
	c.Hold, c.Held = res.Hold, res.Held
	c.Latency = Latencies{P50: res.P50, P99: res.P99, P999: res.P999}
	if ticks, kernel, span, ok := s.cpuOver(res.Start, res.Start.Add(res.Duration)); ok && (res.RPS > 0 || res.Hold) {
		cpuUs := float64(ticks) * 1e6 / clockTicks
		c.CPUPercent = 100 * cpuUs / float64(span.Microseconds())
		if res.RPS > 0 {
			c.CPUUsPerReq = cpuUs / (res.RPS * span.Seconds())
			c.CPUKernelUsPerReq = float64(kernel) * 1e6 / clockTicks / (res.RPS * span.Seconds())
		}
	}
	if hwm >= 0 {
		c.RSSPeakBytes = hwm
		if rssBase >= 0 {
			c.RSSPerConnByte = max(0, hwm-rssBase) / int64(sc.Connections)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c.GoroutinesMax = s.gmax
	if s.first != nil && s.last != nil {
		c.GCCount = s.last.Memstats.NumGC - s.first.Memstats.NumGC
		c.GCPauseTotalUs = (s.last.Memstats.PauseTotalNs - s.first.Memstats.PauseTotalNs) / 1000
	}
	return nil
}

// proc is a started server.
type proc struct {
	cmd         *exec.Cmd
	addr, debug string
	out         *limitedBuffer
	done        chan struct{}
}

func (r *Runner) start(ctx context.Context, srv Server, sc Scenario, root string) (*proc, error) {
	free := freeAddr
	if sc.HTTP3 != nil {
		free = freeUDPAddr // the server listens on QUIC
	}
	addr, err := free()
	if err != nil {
		return nil, err
	}
	debug, err := freeAddr()
	if err != nil {
		return nil, err
	}
	command, err := srv.commandLine(addr, debug, time.Duration(sc.Delay), sc.Mode(), root)
	if err != nil {
		return nil, err
	}
	if command, err = srv.compressCommand(command, sc); err != nil {
		return nil, err
	}
	line := "exec " + command
	cmd := exec.Command("sh", "-c", line)
	if len(r.ServerCPUs) > 0 {
		cmd = exec.Command("taskset", "-c", r.ServerCPUs.String(), "sh", "-c", line)
		cmd.Env = append(cmd.Environ(), "GOMAXPROCS="+strconv.Itoa(len(r.ServerCPUs)))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &limitedBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", srv.Name, err)
	}
	p := &proc{cmd: cmd, addr: addr, debug: debug, out: out, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	timeout := r.StartTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if err := p.waitReady(ctx, timeout, sc); err != nil {
		p.stop()
		return nil, fmt.Errorf("server %s: %w", srv.Name, err)
	}
	return p, nil
}

// waitReady polls the server until it answers an HTTP request in the
// scenario's protocol, exits, or the timeout passes. Each request may take
// the handler's delay longer. HTTP/3 servers are asked over QUIC by
// gust's own load generator (probeH3).
func (p *proc) waitReady(ctx context.Context, timeout time.Duration, sc Scenario) error {
	delay := time.Duration(sc.Delay)
	client := readyClient(sc.Mode(), time.Second+delay)
	deadline := time.Now().Add(timeout + delay)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("exited before answering (%s): %s", p.cmd.ProcessState, firstLine(p.out.String()))
		default:
		}
		url := sc.Scheme() + "://" + p.addr + "/"
		var err error
		if sc.HTTP3 != nil {
			err = probeH3(ctx, url, time.Second+delay)
		} else {
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			var resp *http.Response
			if resp, err = client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("did not answer on %s within %s (%v): %s", p.addr, timeout, err, firstLine(p.out.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the server's process group: SIGTERM, then SIGKILL after 3 s.
func (p *proc) stop() {
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	// Anything the server left in its group goes too.
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
