package lab

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// LoadResult is what a load generator measured in one cell.
type LoadResult struct {
	// Start and Duration are the measured window (after warmup and ramp).
	Start    time.Time
	Duration time.Duration
	Requests int64
	RPS      float64
	// Latency percentiles in microseconds; -1 when the loader does not report one.
	P50, P99, P999 float64
	// Errors counts failed requests and non-2xx/3xx responses.
	Errors int64
	// CapacityRate, for a capacity scenario, is the highest rate that met
	// its objective, found in CapacitySteps steps; the rest describes the
	// step at that rate.
	CapacityRate  float64
	CapacitySteps int
	// Hold says the scenario held connections rather than sent requests
	// (a WebSocket hold): Held is how many were held to its end, and no
	// request rate or latency applies.
	Hold bool
	Held int64
}

// Loader drives one scenario against a URL.
type Loader interface {
	Name() string
	Load(ctx context.Context, url string, sc Scenario) (*LoadResult, error)
}

// NewLoader returns the loader called name: "gust" (in-process), "wrk",
// "hey", "ab" or "h2load" (external tools, which must be on PATH).
func NewLoader(name string) (Loader, error) {
	switch name {
	case "", "gust":
		return GustLoader{}, nil
	case "h2load":
		if _, err := exec.LookPath(name); err != nil {
			return nil, errors.New("loader h2load is not installed (not on PATH); install Debian's nghttp2-client")
		}
		return H2load{}, nil
	case "wrk", "hey", "ab":
		if _, err := exec.LookPath(name); err != nil {
			return nil, fmt.Errorf("loader %s is not installed (not on PATH); install it or use --loader gust", name)
		}
		return toolLoaders[name], nil
	}
	return nil, fmt.Errorf("unknown loader %q: use gust, wrk, hey, ab or h2load", name)
}

// GustLoader runs gust's load generator in-process; HTTP/2 cells as gust
// load --http2 -m N, HTTP/3 cells as gust load --http3 -m N (N the
// scenario's streams per connection).
type GustLoader struct {
	// Loops is the number of event loops (0: GOMAXPROCS).
	Loops int
}

// Name returns "gust".
func (GustLoader) Name() string { return "gust" }

// Load runs sc with load.Run. Measurement starts after the warmup and once
// every connection is up.
func (g GustLoader) Load(ctx context.Context, url string, sc Scenario) (*LoadResult, error) {
	if err := gustCannot(sc); err != nil {
		return nil, err
	}
	if sc.WebSocket != nil {
		return g.loadWebSocket(ctx, url, sc)
	}
	cfg := load.Config{
		URL:              url,
		Connections:      sc.Connections,
		Duration:         time.Duration(sc.Duration),
		Warmup:           time.Duration(sc.Warmup),
		Pipeline:         sc.PipelineDepth(),
		HTTP2:            sc.HTTP2 != nil, // gust load --http2 -m N
		HTTP3:            sc.HTTP3 != nil, // gust load --http3 -m N
		Streams:          sc.Streams(),
		DisableKeepAlive: !sc.KeepAliveOn(),
		Header:           sc.requestHeader(), // Accept-Encoding in a compression cell
		Timeout:          loadTimeout(sc),
		Loops:            g.Loops,
		// The lab's TLS targets are self-signed; resumption is on (a
		// tls-no-resume server refuses it, so those cells stay full).
		TLS: load.TLSConfig{Insecure: sc.TLS != nil || sc.HTTP3 != nil},
	}
	if sc.Capacity != nil {
		return g.loadCapacity(ctx, cfg, sc)
	}
	res, err := load.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return gustResult(res), nil
}

// gustResult describes a gust run as a cell does: errors include 4xx
// and 5xx responses.
func gustResult(res *result.Result) *LoadResult {
	lr := &LoadResult{
		Start:    res.Start,
		Duration: res.Duration,
		Requests: res.Requests,
		RPS:      res.RPS(),
		Errors:   res.ErrorCount(),
	}
	for code, n := range res.Status {
		if code >= 400 {
			lr.Errors += n
		}
	}
	if res.Requests > 0 {
		lr.P50 = float64(res.Latency.ValueAtQuantile(50))
		lr.P99 = float64(res.Latency.ValueAtQuantile(99))
		lr.P999 = float64(res.Latency.ValueAtQuantile(99.9))
	}
	return lr
}

// loadTimeout bounds connecting and each response: long enough for a slow
// handler and a ramp of thousands of connections.
func loadTimeout(sc Scenario) time.Duration {
	return 10*time.Second + 2*time.Duration(sc.Delay)
}

// runTool runs an external loader, bounded by the scenario's time.
func runTool(ctx context.Context, sc Scenario, name string, args ...string) (string, time.Time, time.Duration, error) {
	limit := time.Duration(sc.Duration) + loadTimeout(sc) + 10*time.Second
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return out.String(), start, took, fmt.Errorf("%s: %v: %s", name, err, firstLine(out.String()))
	}
	return out.String(), start, took, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// toolLoader drives an external load generator and parses its output.
type toolLoader struct {
	name  string
	args  func(url string) func(Scenario) []string
	parse func(out string) (*LoadResult, error)
}

// toolLoaders are the external loaders by name.
var toolLoaders = map[string]toolLoader{
	"wrk": {"wrk", wrkArgs, ParseWrk},
	"hey": {"hey", heyArgs, ParseHey},
	"ab":  {"ab", abArgs, ParseAb},
}

func (t toolLoader) Name() string { return t.name }

// Load warms up with an unmeasured run (none of these tools has a warmup
// of its own), then runs the tool for the scenario and parses its report.
func (t toolLoader) Load(ctx context.Context, url string, sc Scenario) (*LoadResult, error) {
	if sc.PipelineDepth() > 1 {
		return nil, fmt.Errorf("%s cannot pipeline requests (wrk only with a Lua script): use --loader gust for this scenario", t.name)
	}
	if err := toolCannot(t.name, sc); err != nil {
		return nil, err
	}
	if err := warmTool(ctx, sc, t.name, t.args(url)); err != nil {
		return nil, err
	}
	out, start, took, err := runTool(ctx, sc, t.name, t.args(url)(sc)...)
	if err != nil {
		return nil, err
	}
	lr, err := t.parse(out)
	if err != nil {
		return nil, err
	}
	lr.Start = start
	if lr.Duration == 0 {
		lr.Duration = took
	}
	return lr, nil
}

// warmTool runs the tool for the scenario's warmup, unmeasured.
func warmTool(ctx context.Context, sc Scenario, name string, args func(Scenario) []string) error {
	if sc.Warmup <= 0 {
		return nil
	}
	w := sc
	w.Duration = Duration(max(time.Duration(sc.Warmup), time.Second))
	_, _, _, err := runTool(ctx, w, name, args(w)...)
	return err
}

func wrkArgs(url string) func(Scenario) []string {
	return func(sc Scenario) []string {
		threads := min(sc.Connections, max(1, runtimeCPUs()))
		secs := max(1, int((time.Duration(sc.Duration)+time.Second-1)/time.Second))
		a := []string{"-t", strconv.Itoa(threads), "-c", strconv.Itoa(sc.Connections), "-d", fmt.Sprintf("%ds", secs),
			"--timeout", fmt.Sprintf("%ds", int(loadTimeout(sc).Seconds())), "--latency"}
		if !sc.KeepAliveOn() {
			a = append(a, "-H", "Connection: close")
		}
		return append(a, url)
	}
}

var (
	wrkTotal   = regexp.MustCompile(`(\d+) requests in ([0-9.]+\w+),`)
	wrkRPS     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkPct     = regexp.MustCompile(`^\s+(50|99|99\.9)%\s+([0-9.]+)(us|ms|s|m)\s*$`)
	wrkSocket  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	heyRPS     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	heyTotal   = regexp.MustCompile(`Total:\s+([0-9.]+) secs`)
	heyPct     = regexp.MustCompile(`^\s+(50|99)%+ in ([0-9.]+) secs`)
	heyStatus  = regexp.MustCompile(`^\s+\[(\d+)\]\s+(\d+) responses`)
	heyErrLine = regexp.MustCompile(`^\s+\[(\d+)\]\s+\S`)
)

// ParseWrk reads the output of wrk --latency. wrk reports the 50th and
// 99th percentiles but not the 99.9th (P999 is -1).
func ParseWrk(out string) (*LoadResult, error) {
	lr := &LoadResult{P50: -1, P99: -1, P999: -1}
	m := wrkRPS.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("wrk output has no Requests/sec line: %s", firstLine(out))
	}
	lr.RPS, _ = strconv.ParseFloat(m[1], 64)
	if m := wrkTotal.FindStringSubmatch(out); m != nil {
		lr.Requests, _ = strconv.ParseInt(m[1], 10, 64)
		lr.Duration, _ = time.ParseDuration(m[2])
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := wrkPct.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		v *= map[string]float64{"us": 1, "ms": 1e3, "s": 1e6, "m": 60e6}[m[3]]
		switch m[1] {
		case "50":
			lr.P50 = v
		case "99":
			lr.P99 = v
		case "99.9":
			lr.P999 = v
		}
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			lr.Errors += n
		}
	}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		lr.Errors += n
	}
	return lr, nil
}

func heyArgs(url string) func(Scenario) []string {
	return func(sc Scenario) []string {
		a := []string{"-z", time.Duration(sc.Duration).String(), "-c", strconv.Itoa(sc.Connections),
			"-t", strconv.Itoa(int(loadTimeout(sc).Seconds()))}
		if !sc.KeepAliveOn() {
			a = append(a, "-disable-keepalive")
		}
		return append(a, url)
	}
}

// ParseHey reads hey's default summary output. hey reports percentiles
// up to the 99th (P999 is -1).
func ParseHey(out string) (*LoadResult, error) {
	lr := &LoadResult{P50: -1, P99: -1, P999: -1}
	m := heyRPS.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("hey output has no Requests/sec line: %s", firstLine(out))
	}
	lr.RPS, _ = strconv.ParseFloat(m[1], 64)
	if m := heyTotal.FindStringSubmatch(out); m != nil {
		secs, _ := strconv.ParseFloat(m[1], 64)
		lr.Duration = time.Duration(secs * float64(time.Second))
	}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Status code distribution:"):
			section = "status"
			continue
		case strings.HasPrefix(line, "Error distribution:"):
			section = "errors"
			continue
		case line != "" && line[0] != ' ' && line[0] != '\t':
			section = ""
		}
		if m := heyPct.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			if m[1] == "50" {
				lr.P50 = v * 1e6
			} else {
				lr.P99 = v * 1e6
			}
			continue
		}
		switch section {
		case "status":
			if m := heyStatus.FindStringSubmatch(line); m != nil {
				code, _ := strconv.Atoi(m[1])
				n, _ := strconv.ParseInt(m[2], 10, 64)
				if code < 400 {
					lr.Requests += n
				} else {
					lr.Errors += n
				}
			}
		case "errors":
			if m := heyErrLine.FindStringSubmatch(line); m != nil {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				lr.Errors += n
			}
		}
	}
	// hey's Requests/sec counts errors too: report answered requests only.
	if lr.Duration > 0 {
		lr.RPS = float64(lr.Requests) / lr.Duration.Seconds()
	}
	return lr, nil
}

func abArgs(url string) func(Scenario) []string {
	return func(sc Scenario) []string {
		secs := max(1, int((time.Duration(sc.Duration)+time.Second-1)/time.Second))
		// -t bounds the run; -n must be larger than what fits in it, but ab
		// allocates its statistics for all -n up front: 200k per second is
		// more than one ab process sends. -r keeps ab going on socket
		// errors, -q drops its progress lines.
		n := max(50000, 200000*secs)
		a := []string{"-q", "-r", "-c", strconv.Itoa(sc.Connections), "-t", strconv.Itoa(secs),
			"-n", strconv.Itoa(n), "-s", strconv.Itoa(int(loadTimeout(sc).Seconds()))}
		if sc.KeepAliveOn() {
			a = append(a, "-k")
		}
		return append(a, url)
	}
}

var (
	abTaken    = regexp.MustCompile(`Time taken for tests:\s+([0-9.]+) seconds`)
	abComplete = regexp.MustCompile(`Complete requests:\s+(\d+)`)
	abFailed   = regexp.MustCompile(`Failed requests:\s+(\d+)`)
	abNon2xx   = regexp.MustCompile(`Non-2xx responses:\s+(\d+)`)
	abPct      = regexp.MustCompile(`^\s+(50|99)%\s+(\d+)`)
)

// ParseAb reads ApacheBench's output. ab counts a request "complete" even
// when it failed, so answered requests are the complete ones less the
// failed ones; its percentiles are whole milliseconds, up to the 99th (P999
// is -1).
func ParseAb(out string) (*LoadResult, error) {
	lr := &LoadResult{P50: -1, P99: -1, P999: -1}
	m := abComplete.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("ab output has no Complete requests line: %s", firstLine(out))
	}
	complete, _ := strconv.ParseInt(m[1], 10, 64)
	var failed, non2xx int64
	if m := abFailed.FindStringSubmatch(out); m != nil {
		failed, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := abNon2xx.FindStringSubmatch(out); m != nil {
		non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	lr.Errors = failed + non2xx
	lr.Requests = max(0, complete-failed-non2xx)
	if m := abTaken.FindStringSubmatch(out); m != nil {
		secs, _ := strconv.ParseFloat(m[1], 64)
		lr.Duration = time.Duration(secs * float64(time.Second))
	}
	if lr.Duration > 0 {
		lr.RPS = float64(lr.Requests) / lr.Duration.Seconds()
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if m := abPct.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			if m[1] == "50" {
				lr.P50 = v * 1e3
			} else {
				lr.P99 = v * 1e3
			}
		}
	}
	return lr, nil
}
