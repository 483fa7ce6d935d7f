package metrics

import (
	"slices"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// The metrics' descriptions, every one labelled with the run's shard.
var (
	descRequests    = prometheus.NewDesc("gust_load_requests_total", "Responses received while measuring (warmup excluded).", []string{"shard"}, nil)
	descErrors      = prometheus.NewDesc("gust_load_errors_total", "Failed requests and connections while measuring, by kind.", []string{"shard", "kind"}, nil)
	descResponses   = prometheus.NewDesc("gust_load_responses_total", "Responses received while measuring, by status code.", []string{"shard", "code"}, nil)
	descLatency     = prometheus.NewDesc("gust_load_latency_seconds", "Latency of the responses counted in gust_load_requests_total (from the intended send time in the open model).", []string{"shard"}, nil)
	descConnections = prometheus.NewDesc("gust_load_connections", "Connections established.", []string{"shard"}, nil)
	descInFlight    = prometheus.NewDesc("gust_load_in_flight", "Requests sent and not yet answered.", []string{"shard"}, nil)
	descTargetRate  = prometheus.NewDesc("gust_load_target_rate", "Requests per second the schedule aims at (0: the closed model, as fast as responses come back).", []string{"shard"}, nil)
)

// describe sends every description an Exporter may collect.
func describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descErrors, descResponses, descLatency, descConnections, descInFlight, descTargetRate} {
		ch <- d
	}
	describeFlow(ch)
}

// Exporter holds the latest measurements of a run, mapped for
// Prometheus, and is the prometheus.Collector that serves them. Update
// and Collect may be called from different goroutines.
type Exporter struct {
	shard  string
	bounds []float64

	mu   sync.Mutex
	snap snapshot
}

// snapshot is one Update's worth of measurements, in Prometheus's units.
type snapshot struct {
	requests    int64
	errors      [result.NumErrorKinds]int64
	codes       []int // in order
	status      map[int]int64
	latency     histSnap
	connections int64
	inFlight    int64
	targetRate  float64
	flow        *flowSnap // a flow run's steps and checks; nil otherwise
}

// NewExporter returns an Exporter for the run's shard (the zero Shard is
// labelled "0/1") with classic buckets at bounds, in seconds, increasing
// (DefaultBuckets if nil). Until its first Update it serves zeros, so
// that counters start from 0.
func NewExporter(shard result.Shard, bounds []float64) *Exporter {
	if bounds == nil {
		bounds = DefaultBuckets
	}
	label := shard.String()
	if label == "" {
		label = "0/1"
	}
	e := &Exporter{shard: label, bounds: bounds}
	e.snap.status = map[int]int64{}
	e.snap.latency = mapHistogram(result.NewHistogram(), bounds)
	return e
}

// Update takes the run's measurements: pass it as load.Config.Live.
func (e *Exporter) Update(l *load.Live) {
	s := snapshot{
		requests:    l.Requests,
		status:      make(map[int]int64, len(l.Status)),
		latency:     mapHistogram(l.Latency, e.bounds),
		connections: l.Connections,
		inFlight:    l.InFlight,
		targetRate:  l.TargetRate,
	}
	for k, n := range l.Errors {
		if k < result.NumErrorKinds {
			s.errors[k] = n
		}
	}
	for code, n := range l.Status {
		s.status[code] = n
		s.codes = append(s.codes, code)
	}
	slices.Sort(s.codes)
	s.flow = mapFlow(l.Flow, e.bounds)
	e.mu.Lock()
	e.snap = s
	e.mu.Unlock()
}

// Describe sends the descriptions of every metric Collect sends.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) { describe(ch) }

// Collect sends the latest measurements.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	s := e.snap // its maps and slices are replaced, never changed
	e.mu.Unlock()
	sh := e.shard
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(s.requests), sh)
	for k, n := range s.errors {
		ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(n), sh, result.ErrorKind(k).String())
	}
	for _, code := range s.codes {
		ch <- prometheus.MustNewConstMetric(descResponses, prometheus.CounterValue, float64(s.status[code]), sh, strconv.Itoa(code))
	}
	ch <- newHistMetric(descLatency, &s.latency, sh)
	ch <- prometheus.MustNewConstMetric(descConnections, prometheus.GaugeValue, float64(s.connections), sh)
	ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(s.inFlight), sh)
	ch <- prometheus.MustNewConstMetric(descTargetRate, prometheus.GaugeValue, s.targetRate, sh)
	if s.flow != nil {
		s.flow.collect(ch, sh)
	}
}
