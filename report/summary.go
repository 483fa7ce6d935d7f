package report

import (
	"fmt"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// StartLayout is how Summary.Start is written: RFC 3339 in UTC with
// milliseconds. time.Parse with time.RFC3339 reads it back.
const StartLayout = "2006-01-02T15:04:05.000Z07:00"

// Summary is the document JSON writes. Its field names and JSON keys are a
// contract: other tools (gust bench, gust merge) decode it back, so keys are
// only ever added, never renamed or removed.
type Summary struct {
	// URL is the target; for a replay, the server only.
	URL string `json:"url"`
	// Method is the requests' method; empty for a replay.
	Method string `json:"method"`
	// Connections is how many connections the run kept open.
	Connections int `json:"connections"`
	// Loops is how many event loops drove them.
	Loops int `json:"loops"`
	// Pipeline is how many requests each connection kept in flight.
	Pipeline int `json:"pipeline"`
	// Rate is the requests per second asked for; 0 in the closed model.
	Rate float64 `json:"rate"`
	// Stages is the open model's rate curve when it changed in stages, as
	// gust load --stages reads it; absent otherwise.
	Stages string `json:"stages,omitempty"`
	// Speed is set when a replay kept its log's times, scaled by Speed.
	Speed float64 `json:"speed,omitempty"`
	// KeepAlive is false when every request had a connection of its own.
	KeepAlive bool `json:"keepalive"`
	// Protocol is result.Result.Protocol: empty for HTTP/1.1, "h2c" or
	// "h2" for HTTP/2, "auto" when ALPN chose per connection, "websocket"
	// for ws:// and wss://.
	Protocol string `json:"protocol,omitempty"`
	// Protocols, for an "auto" run, counts the connections that spoke
	// each protocol: {"h2": 48, "http/1.1": 2}; left out otherwise.
	Protocols map[string]int64 `json:"protocols,omitempty"`
	// HTTP2, for an HTTP/2 or auto run, holds its streams per connection,
	// the RST_STREAM and GOAWAY frames received by code, and the retries.
	HTTP2 *HTTP2Stats `json:"http2,omitempty"`
	// Shard, for one agent's share of a run (gust load --shard), is "I/N".
	Shard string `json:"shard,omitempty"`
	// StartAt is when the run was asked to begin (gust load --start-at),
	// in StartLayout.
	StartAt string `json:"start_at,omitempty"`
	// Start is when measurement began, in StartLayout.
	Start string `json:"start"`
	// DurationS is the measured time in seconds, to the millisecond.
	DurationS float64 `json:"duration_s"`
	// Interrupted is true when the run was stopped early.
	Interrupted bool `json:"interrupted"`
	// Requests counts complete responses.
	Requests int64 `json:"requests"`
	// RPS is responses per second over DurationS, to 0.1.
	RPS float64 `json:"rps"`
	// BytesRead counts bytes received, heads and bodies.
	BytesRead int64 `json:"bytes_read"`
	// BytesWritten counts bytes sent.
	BytesWritten int64 `json:"bytes_written"`
	// Connects counts connections opened, including reconnects.
	Connects int64 `json:"connects"`
	// Reconnects counts connections reopened after the server or an error
	// closed one.
	Reconnects int64 `json:"reconnects"`
	// Retried counts requests sent again because the connection they went
	// out on ended before answering them (an HTTP/1.1 keep-alive
	// connection closed, a WebSocket closed as the server went away);
	// absent when 0.
	Retried int64 `json:"retried,omitempty"`
	// Latency describes the latency histogram, in microseconds.
	Latency Stats `json:"latency_us"`
	// Connect is nil when no connect times were measured.
	Connect *Stats `json:"connect_us,omitempty"`
	// Late is nil in the closed model (without Rate or Speed).
	Late *Lateness `json:"late,omitempty"`
	// Status counts responses per status code.
	Status map[string]int64 `json:"status"`
	// Errors counts failures for every result.ErrorKind by name, zeros
	// included; HTTP/2's kinds are left out of an HTTP/1.1 run's, and
	// WebSocket's "upgrade" out of an HTTP run's, unless counted.
	Errors map[string]int64 `json:"errors"`
	// ErrorTotal counts failures of every kind.
	ErrorTotal int64 `json:"error_total"`
	// Timeline has one entry per second of measurement.
	Timeline []Second `json:"timeline"`
	// LatencyHdr is the whole latency histogram in HdrHistogram's V2
	// compressed encoding, base64 text, so that runs can be merged exactly;
	// LatencyHistogram decodes it.
	LatencyHdr string `json:"latency_hdr"`
	// ConnectHdr and LatenessHdr hold the connect-time and lateness
	// histograms, encoded as LatencyHdr is; each is left out when Connect
	// or Late is.
	ConnectHdr string `json:"connect_hdr,omitempty"`
	// LatenessHdr holds the lateness histogram, encoded as LatencyHdr is.
	LatenessHdr string `json:"lateness_hdr,omitempty"`
	// Endpoints, for a replay or a gust load --targets run, holds one row
	// per endpoint, busiest first.
	Endpoints []EndpointStats `json:"endpoints,omitempty"`
	// Flows, for a run of user journeys (gust load --flow), holds its
	// iterations and checks; its steps are Endpoints.
	Flows *FlowsStats `json:"flows,omitempty"`
	// Input, for a replay, says what was read from the log.
	Input *result.Input `json:"input,omitempty"`
	// Agents, for a merged result (gust merge), describes each agent's
	// share, in shard order.
	Agents []AgentStats `json:"agents,omitempty"`
	// TLS, for a run over TLS (https://), describes its handshakes; left
	// out for a plain run.
	TLS *TLSStats `json:"tls,omitempty"`
	// QUIC, for an HTTP/3 run, describes its QUIC connections; left out
	// otherwise.
	QUIC *QUICStats `json:"quic,omitempty"`
	// WebSocket, for a WebSocket run (ws:// or wss://), describes its
	// upgrades, messages each way, closes, pings and held connections;
	// left out for an HTTP run.
	WebSocket *WebSocketStats `json:"websocket,omitempty"`
	// SSE, when responses were read as Server-Sent Events, and Stream,
	// when bodies were read as they arrived, describe them; absent
	// otherwise (stream.go).
	SSE    *StreamStats `json:"sse,omitempty"`
	Stream *StreamStats `json:"stream,omitempty"`
	// GRPC, for a gRPC run (--grpc-call), counts its calls by status name
	// and its response messages; absent otherwise (grpc.go).
	GRPC *GRPCStats `json:"grpc,omitempty"`
	// Thresholds, for a judged run (--threshold), holds each threshold's
	// verdict in the order given; left out otherwise.
	Thresholds []ThresholdStats `json:"thresholds,omitempty"`
}

// Stats describes a histogram of microseconds. Mean and Stddev are rounded
// to 0.1 us; every field is 0 for an empty histogram.
type Stats struct {
	// Min is the lowest value.
	Min int64 `json:"min"`
	// Mean is the mean value, to 0.1.
	Mean float64 `json:"mean"`
	// Stddev is the standard deviation, to 0.1.
	Stddev float64 `json:"stddev"`
	// P50 is the median.
	P50 int64 `json:"p50"`
	// P75 is the 75th percentile.
	P75 int64 `json:"p75"`
	// P90 is the 90th percentile.
	P90 int64 `json:"p90"`
	// P99 is the 99th percentile.
	P99 int64 `json:"p99"`
	// P999 is the 99.9th percentile.
	P999 int64 `json:"p999"`
	// P9999 is the 99.99th percentile.
	P9999 int64 `json:"p9999"`
	// Max is the highest value.
	Max int64 `json:"max"`
}

// Lateness describes, in the open model, how far behind schedule requests
// started.
type Lateness struct {
	// Count counts requests started more than ThresholdUs late.
	Count int64 `json:"count"`
	// ThresholdUs is result.LateThreshold in microseconds.
	ThresholdUs int64 `json:"threshold_us"`
	// P50us is the median lateness.
	P50us int64 `json:"p50_us"`
	// P99us is the 99th percentile of lateness.
	P99us int64 `json:"p99_us"`
	// MaxUs is the largest lateness.
	MaxUs int64 `json:"max_us"`
}

// Second is one entry of Summary.Timeline: result.Second, with its
// histogram encoded as Summary.LatencyHdr is when the run kept it
// (gust load -o json does), so that timelines can be merged exactly.
type Second struct {
	// Second counts seconds since Start; the last entry may cover less than a
	// second.
	Second int `json:"second"`
	// Requests counts the responses completed in this second.
	Requests int64 `json:"requests"`
	// Errors counts the failures of this second.
	Errors int64 `json:"errors"`
	// BytesRead counts the bytes received in this second.
	BytesRead int64 `json:"bytes_read"`
	// TargetRate is the requests per second the open model intended in
	// this second; absent in the closed model.
	TargetRate float64 `json:"target_rate,omitempty"`
	// P50us is the median latency of this second's responses.
	P50us int64 `json:"p50_us"`
	// P99us is the 99th percentile latency of this second's responses.
	P99us int64 `json:"p99_us"`
	// Hdr is this second's latency histogram, encoded as Summary.LatencyHdr
	// is; empty unless the run kept it.
	Hdr string `json:"hdr,omitempty"`
}

// AgentStats is one row of Summary.Agents: result.Agent.
type AgentStats struct {
	// Name is the file (and document) the result was read from.
	Name string `json:"name"`
	// Shard is the agent's share, "I/N".
	Shard string `json:"shard,omitempty"`
	// Start is when the agent began measuring, in StartLayout.
	Start string `json:"start"`
	// OffsetS is Start after the earliest agent's start, in seconds to the
	// millisecond.
	OffsetS float64 `json:"offset_s"`
	// DurationS is how long the agent measured, in seconds to the
	// millisecond.
	DurationS float64 `json:"duration_s"`
	// Requests counts the agent's complete responses.
	Requests int64 `json:"requests"`
	// Errors counts the agent's failures.
	Errors int64 `json:"errors"`
	// P99us is the agent's latency p99 in microseconds.
	P99us int64 `json:"p99_us"`
	// Interrupted is true when the agent's run was stopped early.
	Interrupted bool `json:"interrupted"`
	// Late is true when the agent started later than the allowed skew.
	Late bool `json:"late"`
	// Short is true when the agent measured (in the open model: sent its
	// schedule) for less than the longest by more than the allowed skew.
	Short bool `json:"short"`
}

// percentiles are the quantiles Stats reports, in field order.
var percentiles = []float64{50, 75, 90, 99, 99.9, 99.99}

// NewSummary describes r. Nil histograms and maps in r read as empty.
func NewSummary(r *result.Result) Summary {
	latency := orEmpty(r.Latency)
	s := Summary{
		URL:          r.URL,
		Method:       r.Method,
		Connections:  r.Connections,
		Loops:        r.Loops,
		Pipeline:     r.Pipeline,
		Rate:         r.Rate,
		Stages:       r.Stages,
		Speed:        r.Speed,
		KeepAlive:    r.KeepAlive,
		Protocol:     r.Protocol,
		Protocols:    r.Protocols,
		HTTP2:        newHTTP2Stats(r.HTTP2),
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
		Retried:      r.Retried,
		Latency:      newStats(latency),
		Status:       make(map[string]int64, len(r.Status)),
		Errors:       make(map[string]int64, len(result.ErrorKinds())),
		ErrorTotal:   r.ErrorCount(),
		Timeline:     make([]Second, 0, len(r.Timeline)),
		Endpoints:    endpointStats(r),
		Flows:        newFlowsStats(r.Flows),
		Input:        r.Input,
		TLS:          newTLSStats(r.TLS),
		QUIC:         newQUICStats(r.QUIC),
		WebSocket:    newWebSocketStats(r.WebSocket),
		GRPC:         newGRPCStats(r.GRPC, r.Duration.Seconds()),
		Thresholds:   newThresholdStats(r.Thresholds),
	}
	s.SSE, s.Stream = newStreamStats(r.Stream, r.Duration.Seconds())
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
			ThresholdUs: result.LateThreshold.Microseconds(),
			P50us:       lateness.ValueAtQuantile(50),
			P99us:       lateness.ValueAtQuantile(99),
			MaxUs:       maxValue(lateness),
		}
		s.LatenessHdr = encode(lateness)
	}
	for code, n := range r.Status {
		s.Status[strconv.Itoa(code)] = n
	}
	for _, kind := range result.ErrorKinds() {
		if kind.HTTP2Only() && r.HTTP2 == nil && r.QUIC == nil && r.Errors[kind] == 0 {
			continue // an HTTP/1.1 run's document reads as before
		}
		if kind.WebSocketOnly() && r.WebSocket == nil && r.Errors[kind] == 0 {
			continue // so does an HTTP run's
		}
		s.Errors[kind.String()] = r.Errors[kind]
	}
	for _, sec := range r.Timeline {
		s.Timeline = append(s.Timeline, Second{
			Second:     sec.Second,
			Requests:   sec.Requests,
			Errors:     sec.Errors,
			BytesRead:  sec.BytesRead,
			TargetRate: round(sec.TargetRate, 3),
			P50us:      sec.P50us,
			P99us:      sec.P99us,
			Hdr:        string(sec.Hist),
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
// histogram made by result.NewHistogram is representable.
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
		return result.NewHistogram()
	}
	return h
}
