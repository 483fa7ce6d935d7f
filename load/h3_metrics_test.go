package load_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/metrics"
	"github.com/gust-http/gust/result"
)

// An HTTP/3 run exports its counts to Prometheus as every other run
// does (--metrics-addr wires the same Exporter into Config.Live): scraped
// during a 2 s run at 300 requests a second, the request and 200
// counters and the connections are up; scraped after, the counters and
// the latency histogram's count are the report's exactly.
func TestHTTP3MetricsAreScraped(t *testing.T) {
	url, answered := load.StartH3TestServer(t)
	exp := metrics.NewExporter(result.Shard{}, nil)
	srv, err := metrics.Listen("127.0.0.1:0", exp)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background(), 0)
	scrapeURL := "http://" + srv.Addr().String() + metrics.Path

	cfg := load.Config{URL: url, HTTP3: true, TLS: load.TLSConfig{Insecure: true}, Connections: 2, Streams: 4,
		Rate: 300, Duration: 2 * time.Second, Loops: 1, Timeout: 5 * time.Second, Live: exp.Update}
	type ran struct {
		res *result.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := load.Run(ctx, cfg)
		done <- ran{res, err}
	}()
	var during map[string]float64
	var r ran
poll:
	for deadline := time.Now().Add(30 * time.Second); ; {
		select {
		case r = <-done:
			break poll
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not end within 30 s")
		}
		if m, err := scrapeSeries(scrapeURL); err == nil && during == nil &&
			m[`gust_load_requests_total{shard="0/1"}`] > 0 && m[`gust_load_connections{shard="0/1"}`] > 0 {
			during = m
		}
		time.Sleep(50 * time.Millisecond) // the scrape interval, not a wait for the run
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if during == nil {
		t.Fatal("no scrape during the run had requests and connections above 0")
	}
	t.Logf("during: %v requests, %v answered 200, %v connections", during[`gust_load_requests_total{shard="0/1"}`],
		during[`gust_load_responses_total{code="200",shard="0/1"}`], during[`gust_load_connections{shard="0/1"}`])
	if during[`gust_load_responses_total{code="200",shard="0/1"}`] == 0 {
		t.Errorf("during the run: no 200 counted in %v", during)
	}
	after, err := scrapeSeries(scrapeURL)
	if err != nil {
		t.Fatal(err)
	}
	res := r.res
	if res.Requests == 0 || res.Status[200] != res.Requests || int64(answered()) < res.Requests {
		t.Errorf("report: %d requests, status %v, %d answered by the server; want every request answered 200", res.Requests, res.Status, answered())
	}
	for series, want := range map[string]int64{
		`gust_load_requests_total{shard="0/1"}`:                   res.Requests,
		`gust_load_responses_total{code="200",shard="0/1"}`:       res.Status[200],
		`gust_load_latency_seconds_count{shard="0/1"}`:            res.Latency.TotalCount(),
		`gust_load_errors_total{kind="protocol",shard="0/1"}`:     0,
		`gust_load_errors_total{kind="read_timeout",shard="0/1"}`: 0,
	} {
		if got, ok := after[series]; !ok || int64(got) != want {
			t.Errorf("after the run: %s = %v (served: %v), want the report's %d", series, got, ok, want)
		}
	}
}

// scrapeSeries GETs a Prometheus text exposition and returns each
// sample by its series (name and labels as written).
func scrapeSeries(url string) (map[string]float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if line == "" || line[0] == '#' || i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			m[line[:i]] = v
		}
	}
	return m, sc.Err()
}
