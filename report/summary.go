package report

import (
	"fmt"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/load"
)

// StartLayout is how Summary.Start is written: RFC 3339 in UTC with
// milliseconds. time.Parse with time.RFC3339 reads it back.
const StartLayout = "2006-01-02T15:04:05.000Z07:00"

// Summary is the document JSON writes. Its field names and JSON keys are a
// contract: other tools (gust bench, gust merge) decode it back, so keys are
// only ever added, never renamed or removed.
type Summary struct {
	URL         string  `json:"url"`
	Method      string  `json:"method"`
	Connections int     `json:"connections"`
	Loops       int     `json:"loops"`
	Pipeline    int     `json:"pipeline"`
	Rate        float64 `json:"rate"` // requests/s asked for; 0 in the closed model
	// Speed is set when a replay kept its log's times, scaled by Speed.
	Speed     float64 `json:"speed,omitempty"`
	KeepAlive bool    `json:"keepalive"`
	// Shard, for one agent's share of a run (gust load --shard), is "I/N".
	Shard string `json:"shard,omitempty"`
	// StartAt is when the run was asked to begin (gust load --start-at),
	// in StartLayout.
	StartAt string `json:"start_at,omitempty"`

	Start       string  `json:"start"`      // in StartLayout
	DurationS   float64 `json:"duration_s"` // to the millisecond
	Interrupted bool    `json:"interrupted"`

	Requests     int64   `json:"requests"`
	RPS          float64 `json:"rps"` // to 0.1
	BytesRead    int64   `json:"bytes_read"`
	BytesWritten int64   `json:"bytes_written"`
	Connects     int64   `json:"connects"`
	Reconnects   int64   `json:"reconnects"`

	Latency Stats `json:"latency_us"`
	// Connect is nil when no connect times were measured.
	Connect *Stats `json:"connect_us,omitempty"`
	// Late is nil in the closed model (without Rate or Speed).
	Late *Lateness `json:"late,omitempty"`

	Status     map[string]int64 `json:"status"` // status code -> responses
	Errors     map[string]int64 `json:"errors"` // every load.ErrorKind by name, zeros included
	ErrorTotal int64            `json:"error_total"`
	Timeline   []Second         `json:"timeline"`

	// LatencyHdr is the whole latency histogram in HdrHistogram's V2
	// compressed encoding, base64 text, so that runs can be merged exactly;
	// LatencyHistogram decodes it.
	LatencyHdr string `json:"latency_hdr"`
	// ConnectHdr and LatenessHdr hold the connect-time and lateness
	// histograms, encoded as LatencyHdr is; each is left out when Connect
	// or Late is.
	ConnectHdr  string `json:"connect_hdr,omitempty"`
	LatenessHdr string `json:"lateness_hdr,omitempty"`

	// Endpoints, for a replay, holds one row per endpoint, busiest first.
	Endpoints []EndpointStats `json:"endpoints,omitempty"`
	// Input, for a replay, says what was read from the log.
	Input *Input `json:"input,omitempty"`
	// Agents, for a merged result (gust merge), describes each agent's
	// share, in shard order.
	Agents []AgentStats `json:"agents,omitempty"`
}

// Stats describes a histogram of microseconds. Mean and Stddev are rounded
// to 0.1 us; every field is 0 for an empty histogram.
type Stats struct {
	Min    int64   `json:"min"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	P50    int64   `json:"p50"`
	P75    int64   `json:"p75"`
	P90    int64   `json:"p90"`
	P99    int64   `json:"p99"`
	P999   int64   `json:"p999"`
	P9999  int64   `json:"p9999"`
	Max    int64   `json:"max"`
}

// Lateness describes, in the open model, how far behind schedule requests
// started.
type Lateness struct {
	Count       int64 `json:"count"`        // requests started more than ThresholdUs late
	ThresholdUs int64 `json:"threshold_us"` // load.LateThreshold
	P50us       int64 `json:"p50_us"`
	P99us       int64 `json:"p99_us"`
	MaxUs       int64 `json:"max_us"`
}

// Second is one entry of Summary.Timeline: load.Second, with its
// histogram encoded as Summary.LatencyHdr is when the run kept it
// (gust load -o json does), so that timelines can be merged exactly.
type Second struct {
	Second    int    `json:"second"`
	Requests  int64  `json:"requests"`
	Errors    int64  `json:"errors"`
	BytesRead int64  `json:"bytes_read"`
	P50us     int64  `json:"p50_us"`
	P99us     int64  `json:"p99_us"`
	Hdr       string `json:"hdr,omitempty"`
}

// AgentStats is one row of Summary.Agents: load.Agent.
type AgentStats struct {
	Name        string  `json:"name"`            // the file (and document) it was read from
	Shard       string  `json:"shard,omitempty"` // "I/N"
	Start       string  `json:"start"`           // in StartLayout
	OffsetS     float64 `json:"offset_s"`        // after the earliest agent's start, to the millisecond
	DurationS   float64 `json:"duration_s"`      // to the millisecond
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	P99us       int64   `json:"p99_us"`
	Interrupted bool    `json:"interrupted"`
	Late        bool    `json:"late"`  // started later than the allowed skew
	Short       bool    `json:"short"` // measured (open model: sent its schedule) for less than the longest by more than the allowed skew
}

// percentiles are the quantiles Stats reports, in field order.
var percentiles = []float64{50, 75, 90, 99, 99.9, 99.99}

// NewSummary describes r. Nil histograms and maps in r read as empty.
func NewSummary(r *load.Result) Summary {
	latency := orEmpty(r.Latency)
	s := Summary{
		URL:          r.URL,
		Method:       r.Method,
		Connections:  r.Connections,
		Loops:        r.Loops,
		Pipeline:     r.Pipeline,
		Rate:         r.Rate,
		Speed:        r.Speed,
		KeepAlive:    r.KeepAlive,
		Shard:        r.Shard.String(),
		Start:        r.Start.UTC().Format(StartLayout),
		DurationS:    round(r.Duration.Seconds(), 3),
		Interrupted:  r.Interrupted,
		Requests:     r.Requests,
		RPS:          round(r.RPS(), 1),
		BytesRead:    r.BytesRead,
		BytesWritten: r.BytesWritten,
		Connects:     r.Connects,
		Reconnects:   r.Reconnects,
		Latency:      newStats(latency),
		Status:       make(map[string]int64, len(r.Status)),
		Errors:       make(map[string]int64, len(load.ErrorKinds())),
		ErrorTotal:   r.ErrorCount(),
		Timeline:     make([]Second, 0, len(r.Timeline)),
		Endpoints:    endpointStats(r),
	}
	if !r.StartAt.IsZero() {
		s.StartAt = r.StartAt.UTC().Format(StartLayout)
	}
	if r.Connect != nil && r.Connect.TotalCount() > 0 {
		c := newStats(r.Connect)
		s.Connect = &c
		s.ConnectHdr = encode(r.Connect)
	}
	if r.Scheduled() {
		lateness := orEmpty(r.Lateness)
		s.Late = &Lateness{
			Count:       r.Late,
			ThresholdUs: load.LateThreshold.Microseconds(),
			P50us:       lateness.ValueAtQuantile(50),
			P99us:       lateness.ValueAtQuantile(99),
			MaxUs:       maxValue(lateness),
		}
		s.LatenessHdr = encode(lateness)
	}
	for code, n := range r.Status {
		s.Status[strconv.Itoa(code)] = n
	}
	for _, kind := range load.ErrorKinds() {
		s.Errors[kind.String()] = r.Errors[kind]
	}
	for _, sec := range r.Timeline {
		s.Timeline = append(s.Timeline, Second{
			Second:    sec.Second,
			Requests:  sec.Requests,
			Errors:    sec.Errors,
			BytesRead: sec.BytesRead,
			P50us:     sec.P50us,
			P99us:     sec.P99us,
			Hdr:       string(sec.Hist),
		})
	}
	s.LatencyHdr = encode(latency)
	for _, a := range r.Agents {
		s.Agents = append(s.Agents, AgentStats{
			Name:        a.Name,
			Shard:       a.Shard.String(),
			Start:       a.Start.UTC().Format(StartLayout),
			OffsetS:     round(a.Offset.Seconds(), 3),
			DurationS:   round(a.Duration.Seconds(), 3),
			Requests:    a.Requests,
			Errors:      a.Errors,
			P99us:       a.P99us,
			Interrupted: a.Interrupted,
			Late:        a.Late,
			Short:       a.Short,
		})
	}
	return s
}

// encode returns h in HdrHistogram's V2 compressed encoding, base64 text.
// Encoding fails only for histograms it cannot represent, and every
// histogram made by load.NewHistogram is representable.
func encode(h *hdrhistogram.Histogram) string {
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(enc)
}

// LatencyHistogram decodes LatencyHdr, the whole run's latency histogram in
// microseconds, for example to merge several runs exactly.
func (s Summary) LatencyHistogram() (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s.LatencyHdr))
	if err != nil {
		return nil, fmt.Errorf("decode latency_hdr: %w", err)
	}
	return h, nil
}

// newStats summarizes h, which must not be nil.
func newStats(h *hdrhistogram.Histogram) Stats {
	if h.TotalCount() == 0 {
		return Stats{}
	}
	p := h.ValueAtPercentilesSlice(percentiles)
	return Stats{
		Min:    h.Min(),
		Mean:   round(h.Mean(), 1),
		Stddev: round(h.StdDev(), 1),
		P50:    p[0],
		P75:    p[1],
		P90:    p[2],
		P99:    p[3],
		P999:   p[4],
		P9999:  p[5],
		Max:    h.Max(),
	}
}

// maxValue is h.Max, but 0 for an empty histogram.
func maxValue(h *hdrhistogram.Histogram) int64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return h.Max()
}

// orEmpty returns h, or an empty histogram when h is nil.
func orEmpty(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if h == nil {
		return load.NewHistogram()
	}
	return h
}
