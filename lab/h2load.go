package lab

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// H2load drives HTTP/2 scenarios with nghttp2's h2load: h2c with prior
// knowledge for http:// URLs, h2 by ALPN for https:// ones.
//
// What h2load cannot measure, beside what the gust loader does: it has no
// latency percentiles (only min, max, mean and standard deviation of
// "time for request", so P50, P99 and P999 are -1), no coordinated-omission
// correction (it is a closed-model tool: a stalled stream delays the next
// request instead of counting late), and no per-request timeout in timed
// runs.
type H2load struct{}

// Name returns "h2load".
func (H2load) Name() string { return "h2load" }

// Load runs h2load for sc, with its own warm-up (--warm-up-time), and
// parses its summary.
func (H2load) Load(ctx context.Context, url string, sc Scenario) (*LoadResult, error) {
	if sc.HTTP3 != nil {
		return nil, fmt.Errorf("h2load (Debian's build) does not speak HTTP/3: use --loader gust for this scenario")
	}
	if sc.Capacity != nil {
		return nil, toolCannot("h2load", sc)
	}
	if sc.Compress != nil {
		return nil, fmt.Errorf("h2load is not told to send Accept-Encoding: compression cells run with --loader gust")
	}
	if sc.HTTP2 == nil {
		return nil, fmt.Errorf("h2load runs HTTP/2 scenarios only (give the scenario \"http2\": {\"streams\": N}); use --loader wrk or gust for %s", sc.Name)
	}
	out, start, took, err := runTool(ctx, sc, "h2load", h2loadArgs(url, sc)...)
	if err != nil {
		return nil, err
	}
	lr, err := ParseH2load(out)
	if err != nil {
		return nil, err
	}
	lr.Start = start.Add(time.Duration(sc.Warmup))
	if lr.Duration == 0 {
		lr.Duration = took - time.Duration(sc.Warmup)
	}
	return lr, nil
}

// h2loadArgs are h2load's arguments for sc: -c connections, -m streams,
// -t threads (one per client CPU, no more than connections), -D seconds
// and --warm-up-time.
func h2loadArgs(url string, sc Scenario) []string {
	threads := min(sc.Connections, max(1, runtimeCPUs()))
	secs := max(1, int((time.Duration(sc.Duration)+time.Second-1)/time.Second))
	a := []string{"-c", strconv.Itoa(sc.Connections), "-m", strconv.Itoa(sc.Streams()),
		"-t", strconv.Itoa(threads), "-D", strconv.Itoa(secs)}
	if sc.Warmup > 0 {
		a = append(a, "--warm-up-time", fmt.Sprintf("%dms", time.Duration(sc.Warmup).Milliseconds()))
	}
	return append(a, url)
}

var (
	h2loadRPS      = regexp.MustCompile(`finished in [0-9.]+\w+, ([0-9.]+) req/s`)
	h2loadRequests = regexp.MustCompile(`requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2loadProto    = regexp.MustCompile(`Application protocol: (\S+)`)
)

// ParseH2load reads h2load's summary. Requests are the succeeded ones
// (2xx and 3xx) and Errors the failed ones (h2load counts errored requests
// and 4xx/5xx answers among them); Duration is done over req/s, the
// measured part without the warm-up (h2load's "finished in" includes it).
// A run that completed no request, or did not speak HTTP/2, is an error.
func ParseH2load(out string) (*LoadResult, error) {
	lr := &LoadResult{P50: -1, P99: -1, P999: -1}
	m := h2loadRPS.FindStringSubmatch(out)
	r := h2loadRequests.FindStringSubmatch(out)
	if m == nil || r == nil {
		return nil, fmt.Errorf("h2load output has no summary (finished in, requests): %s", firstLine(out))
	}
	lr.RPS, _ = strconv.ParseFloat(m[1], 64)
	n := make([]int64, 7)
	for i := range n {
		n[i], _ = strconv.ParseInt(r[i+1], 10, 64)
	}
	started, done, succeeded, failed := n[1], n[2], n[3], n[4]
	lr.Requests, lr.Errors = succeeded, failed
	if done == 0 {
		if p := h2loadProto.FindStringSubmatch(out); p == nil {
			return nil, fmt.Errorf("h2load completed no request and negotiated no protocol: is the server up and serving HTTP/2 (%d started)?", started)
		}
		return nil, fmt.Errorf("h2load completed no request (%d started): does the server speak HTTP/2?", started)
	}
	if p := h2loadProto.FindStringSubmatch(out); p != nil && p[1] != "h2" && p[1] != "h2c" {
		return nil, fmt.Errorf("h2load spoke %s, not HTTP/2: the server did not offer h2 by ALPN", p[1])
	}
	if lr.RPS > 0 {
		lr.Duration = time.Duration(float64(done) / lr.RPS * float64(time.Second))
	}
	return lr, nil
}
