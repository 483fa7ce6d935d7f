package metrics

import (
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// constructedLive is a run's state with a bit of everything: two status
// codes, one kind of error, latencies across the bounds.
func constructedLive() *load.Live {
	h := result.NewHistogram()
	for _, us := range []int64{800, 1500, 2000, 2000, 20000, 250000} {
		h.RecordValue(us)
	}
	errs := map[result.ErrorKind]int64{}
	for k := range result.NumErrorKinds {
		errs[k] = 0
	}
	errs[result.ErrReadTimeout] = 2
	return &load.Live{
		Requests:    6,
		Status:      map[int]int64{503: 1, 200: 5},
		Errors:      errs,
		Latency:     h,
		InFlight:    2,
		Connections: 3,
		TargetRate:  100,
	}
}

// TestExpositionMatchesGolden serves a constructed Live and compares the
// text format and OpenMetrics, as a scraper gets them, with testdata/.
func TestExpositionMatchesGolden(t *testing.T) {
	exp := NewExporter(result.Shard{Index: 1, Count: 4}, []float64{0.001, 0.002, 0.02, 0.1})
	exp.Update(constructedLive())
	srv, err := Listen("127.0.0.1:0", exp)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background(), 0)
	for _, tc := range []struct{ golden, accept string }{
		{"text.golden", "text/plain"},
		{"openmetrics.golden", "application/openmetrics-text;version=1.0.0"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got := scrape(t, "http://"+srv.Addr().String()+Path, tc.accept)
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("scrape with Accept %s:\n%s\nwant (%s):\n%s", tc.accept, got, path, want)
			}
		})
	}
}

func scrape(t *testing.T, url, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

// TestExporterServesZerosBeforeTheFirstUpdate: counters start from 0, so
// that rate() over a run's first seconds sees the whole increase.
func TestExporterServesZerosBeforeTheFirstUpdate(t *testing.T) {
	exp := NewExporter(result.Shard{}, nil)
	fams := gather(t, exp)
	if v := fams["gust_load_requests_total"].Metric[0].GetCounter().GetValue(); v != 0 {
		t.Errorf("requests_total = %g, want 0", v)
	}
	if got := fams["gust_load_errors_total"].Metric; len(got) != int(result.NumErrorKinds) {
		t.Errorf("%d error kinds served, want every one (%d)", len(got), result.NumErrorKinds)
	}
	h := fams["gust_load_latency_seconds"].Metric[0]
	if len(h.GetHistogram().GetBucket()) != len(DefaultBuckets) || h.GetHistogram().GetSampleCount() != 0 {
		t.Errorf("histogram %v, want the default buckets, empty", h.GetHistogram())
	}
	if got := h.GetLabel()[0]; got.GetName() != "shard" || got.GetValue() != "0/1" {
		t.Errorf("label %v, want shard=\"0/1\" for the whole run", got)
	}
}

// TestNativeHistogramCountsEveryValue checks the protobuf form a
// Prometheus with native histograms reads: schema, and spans and deltas
// that decode to buckets holding every value, each in its own bucket.
func TestNativeHistogramCountsEveryValue(t *testing.T) {
	exp := NewExporter(result.Shard{}, nil)
	live := constructedLive()
	exp.Update(live)
	h := gather(t, exp)["gust_load_latency_seconds"].Metric[0].GetHistogram()
	if h.GetSchema() != NativeSchema {
		t.Fatalf("schema %d, want %d", h.GetSchema(), NativeSchema)
	}
	got := map[int]int64{}
	idx, n := 0, int64(0)
	deltas := h.GetPositiveDelta()
	for _, sp := range h.GetPositiveSpan() {
		idx += int(sp.GetOffset())
		for range sp.GetLength() {
			n += deltas[0]
			deltas = deltas[1:]
			got[idx] = n
			idx++
		}
	}
	want := map[int]int64{}
	for _, us := range []int64{800, 1500, 2000, 2000, 20000 + 15, 250000 + 127} { // reported values
		want[nativeIndex(float64(us)/1e6)]++
	}
	if len(got) != len(want) {
		t.Fatalf("native buckets %v, want %v", got, want)
	}
	for i, c := range want {
		if got[i] != c {
			t.Errorf("bucket %d holds %d, want %d (all: %v)", i, got[i], c, got)
		}
	}
	if h.GetSampleCount() != uint64(live.Requests) {
		t.Errorf("count %d, want %d", h.GetSampleCount(), live.Requests)
	}
}

func gather(t *testing.T, c prometheus.Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// BenchmarkUpdate measures what a run pays once a second to publish: the
// cumulative histogram mapped onto the default and native buckets.
func BenchmarkUpdate(b *testing.B) {
	exp := NewExporter(result.Shard{}, nil)
	live := constructedLive()
	for i := range int64(100_000) {
		live.Latency.RecordValue(100 + i*37%500_000)
	}
	b.ReportAllocs()
	for b.Loop() {
		exp.Update(live)
	}
}

// BenchmarkScrape measures one scrape in the text format, off the run's
// goroutines.
func BenchmarkScrape(b *testing.B) {
	exp := NewExporter(result.Shard{}, nil)
	exp.Update(constructedLive())
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exp)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
