package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// TestPrometheusScrapesLoad has Debian's prometheus scrape gust load
// --metrics-addr every second on loopback while a 12 s run at 200 req/s
// goes on against a server that answers after 20 ms, then checks what
// Prometheus computes against gust's own report:
//   - during the run, rate(gust_load_requests_total[5s]), and
//     histogram_quantile(0.99, ...) of the buckets' increase over the last
//     four scrapes, are within 5% the request rate and p99 of the same
//     seconds of the report's timeline (its counts, and its histograms
//     merged);
//   - after the run, the final requests and histogram count are the
//     report's exactly, and the whole run's p99 is the report's within 5%;
//   - a second Prometheus, with native histograms on, gets the same p99s
//     from the native buckets.
//
// The buckets are 2% apart around the latency (--metrics-buckets), so
// that Prometheus's interpolation within a bucket stays within 2%. The
// run starts half a second after Prometheus's scrapes (--start-at), so
// that no scrape races gust's once-a-second update and every 5 s window
// holds exactly four updates.
func TestPrometheusScrapesLoad(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (apt-get install prometheus; .ci/run installs it when CI=true)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("Hello, Go!"))
	}))
	defer srv.Close()
	metricsAddr, promAddr := freeAddr(t), freeAddr(t)
	prom := startPrometheus(t, bin, promAddr, metricsAddr)
	// A second one reads the native histogram: with the feature on,
	// Prometheus 2.42 negotiates protobuf and keeps only the native
	// buckets of a histogram that has both.
	native := startPrometheus(t, bin, freeAddr(t), metricsAddr, "--enable-feature=native-histograms")

	// Scrapes of the address begin (and fail) before gust listens: their
	// phase is Prometheus's, fixed for the target.
	phase := prom.scrapePhase(t)
	now := time.Now()
	startAt := now.Truncate(time.Second).Add(3*time.Second + phase + 500*time.Millisecond)
	const duration, rate = 12 * time.Second, 200
	type run struct {
		out  string
		err  error
		done time.Time
	}
	ran := make(chan run, 1)
	go func() {
		out, _, err := gust(t, "load", "--rate", strconv.Itoa(rate), "-c", "20", "-z", duration.String(),
			"--start-at", startAt.UTC().Format(time.RFC3339Nano), "--metrics-addr", metricsAddr,
			"--metrics-linger", "4s", "--metrics-buckets", fineBuckets(19*time.Millisecond, 2*time.Second, 1.02),
			"-o", "json", "--quiet", srv.URL)
		ran <- run{out, err, time.Now()}
	}()

	// During the run: a 5 s window ending 9 s into it.
	during := startAt.Add(9 * time.Second)
	time.Sleep(time.Until(during) + 100*time.Millisecond)
	rateNow := prom.value(t, "rate(gust_load_requests_total[5s])", during)
	window := prom.samples(t, "gust_load_requests_total[5s]", during)
	// The p99 of the last four scrapes' increase: the difference of two
	// samples, which rate() would extrapolate to the window's edges bucket
	// by bucket, each as far as its own counts allow.
	p99Now := prom.value(t, "histogram_quantile(0.99, sum by (le) (gust_load_latency_seconds_bucket - gust_load_latency_seconds_bucket offset 4s))", during)
	between := []float64{prom.value(t, "gust_load_requests_total offset 4s", during), prom.value(t, "gust_load_requests_total", during)}
	// Prometheus 2.42 cannot subtract native histograms; its rate() scales
	// a native histogram as a whole.
	p99NowNative := native.value(t, "histogram_quantile(0.99, rate(gust_load_latency_seconds[5s]))", during)
	windowNative := native.samples(t, "gust_load_requests_total[5s]", during)

	r := <-ran
	if r.err != nil {
		t.Fatalf("gust load: %v", r.err)
	}
	parts, err := report.ReadResults([]byte(r.out), "gust load")
	if err != nil {
		t.Fatal(err)
	}
	res := parts[0].Result
	t.Logf("report: %d requests in %s, p99 %dus; Prometheus 9 s in: %.1f/s, p99 %.5fs (native %.5fs) over the last 5 s",
		res.Requests, res.Duration, res.Latency.ValueAtQuantile(99), rateNow, p99Now, p99NowNative)

	// The report's timeline for the seconds the window's samples span: in
	// the open model a generator that fell behind catches up, so only the
	// same seconds can be compared.
	seconds, requests, _ := timelineWindow(t, res, window)
	within(t, fmt.Sprintf("request rate over seconds %v", seconds), rateNow, float64(requests)/float64(len(seconds)))
	seconds, _, p99 := timelineWindow(t, res, between)
	within(t, fmt.Sprintf("p99 over seconds %v", seconds), p99Now, p99)
	seconds, _, p99 = timelineWindow(t, res, windowNative)
	within(t, fmt.Sprintf("native p99 over seconds %v", seconds), p99NowNative, p99)

	// After: the values served while gust lingered.
	after := r.done.Add(-1500 * time.Millisecond)
	if got := prom.value(t, "gust_load_requests_total", after); got != float64(res.Requests) {
		t.Errorf("final gust_load_requests_total %g, want the report's %d", got, res.Requests)
	}
	if got := prom.value(t, "gust_load_latency_seconds_count", after); got != float64(res.Requests) {
		t.Errorf("final gust_load_latency_seconds_count %g, want the report's %d", got, res.Requests)
	}
	if got := prom.value(t, `gust_load_responses_total{code="200",shard="0/1"}`, after); got != float64(res.Status[200]) {
		t.Errorf("final 200 responses %g, want the report's %d", got, res.Status[200])
	}
	reportP99 := float64(res.Latency.ValueAtQuantile(99)) / 1e6
	within(t, "the whole run's p99", prom.value(t, "histogram_quantile(0.99, sum by (le) (gust_load_latency_seconds_bucket))", after), reportP99)
	if got := native.value(t, "histogram_count(gust_load_latency_seconds)", after); got != float64(res.Requests) {
		t.Errorf("final native histogram count %g, want the report's %d", got, res.Requests)
	}
	within(t, "the whole run's p99 (native)", native.value(t, "histogram_quantile(0.99, gust_load_latency_seconds)", after), reportP99)
}

// timelineWindow returns the seconds of res's timeline whose requests
// took gust_load_requests_total from the first to the last of window's
// samples, their requests, and the p99 of their merged histograms in
// seconds.
func timelineWindow(t *testing.T, res *result.Result, window []float64) (seconds []int, requests int64, p99 float64) {
	t.Helper()
	if len(window) < 2 {
		t.Fatalf("window samples %v, want two or more", window)
	}
	first, last := int64(window[0]), int64(window[len(window)-1])
	merged := result.NewHistogram()
	var sum int64
	for _, s := range res.Timeline {
		if sum >= first && sum < last {
			h, err := hdrhistogram.Decode(s.Hist)
			if err != nil {
				t.Fatal(err)
			}
			merged.Merge(h)
			seconds = append(seconds, s.Second)
		}
		sum += s.Requests
	}
	if merged.TotalCount() != last-first {
		t.Fatalf("the window's %d requests (%d to %d) are not whole seconds of the timeline (got %d in seconds %v)", last-first, first, last, merged.TotalCount(), seconds)
	}
	return seconds, last - first, float64(merged.ValueAtQuantile(99)) / 1e6
}

// within fails t unless got is want within 5%.
func within(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > 0.05*want {
		t.Errorf("%s: Prometheus says %g, gust %g: more than 5%% apart", what, got, want)
	}
}

// fineBuckets is --metrics-buckets from lo to hi, each bound factor times
// the last, in whole microseconds.
func fineBuckets(lo, hi time.Duration, factor float64) string {
	var b []string
	for v := float64(lo.Microseconds()); v <= float64(hi.Microseconds()); v *= factor {
		b = append(b, fmt.Sprintf("%dus", int64(v)))
	}
	return strings.Join(b, ",")
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// promServer is a prometheus process of the test's own.
type promServer struct {
	base string
	log  string
}

// startPrometheus runs prometheus on addr with flags, its own
// configuration and storage under a temporary directory, scraping target
// every second, and kills it when the test ends.
func startPrometheus(t *testing.T, bin, addr, target string, flags ...string) *promServer {
	t.Helper()
	dir := t.TempDir()
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gust
    static_configs:
      - targets: [%q]
`, target)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &promServer{base: "http://" + addr, log: filepath.Join(dir, "prometheus.log")}
	logFile, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--config.file=" + cfgPath, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + addr}, flags...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(p.log)
			t.Logf("prometheus's log:\n%s", out)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready on %s after 30s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scrapePhase waits for the target's first scrape and returns when in a
// second its scrapes happen.
func (p *promServer) scrapePhase(t *testing.T) time.Duration {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var targets struct {
			Data struct {
				ActiveTargets []struct {
					LastScrape time.Time `json:"lastScrape"`
				} `json:"activeTargets"`
			} `json:"data"`
		}
		p.get(t, "/api/v1/targets", nil, &targets)
		if a := targets.Data.ActiveTargets; len(a) == 1 && a[0].LastScrape.Year() > 2000 {
			return a[0].LastScrape.Sub(a[0].LastScrape.Truncate(time.Second))
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("prometheus did not scrape its target within 15s")
	return 0
}

// value evaluates an instant query at time at, which must give one
// series, and returns its value.
func (p *promServer) value(t *testing.T, query string, at time.Time) float64 {
	t.Helper()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	p.query(t, query, at, &r)
	if len(r.Data.Result) != 1 {
		t.Fatalf("%s at %s: %d series, want one", query, at.Format(time.StampMilli), len(r.Data.Result))
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s: value %v", query, r.Data.Result[0].Value)
	}
	return v
}

// samples evaluates a range selector of one series at time at and
// returns its samples' values.
func (p *promServer) samples(t *testing.T, query string, at time.Time) []float64 {
	t.Helper()
	var r struct {
		Data struct {
			Result []struct {
				Values [][2]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	p.query(t, query, at, &r)
	if len(r.Data.Result) != 1 {
		t.Fatalf("%s: %d series, want one", query, len(r.Data.Result))
	}
	var out []float64
	for _, v := range r.Data.Result[0].Values {
		s, _ := v[1].(string)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: sample %v", query, v)
		}
		out = append(out, f)
	}
	return out
}

func (p *promServer) query(t *testing.T, query string, at time.Time, into any) {
	t.Helper()
	p.get(t, "/api/v1/query", url.Values{"query": {query}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}, into)
}

func (p *promServer) get(t *testing.T, path string, q url.Values, into any) {
	t.Helper()
	u := p.base + path
	if q != nil {
		u += "?" + q.Encode()
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v %s", u, resp.StatusCode, err, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
