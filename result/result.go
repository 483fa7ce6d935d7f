package result

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Result is what a run measured (gust load's Config in load.Config's
// terms). Latencies are in microseconds.
type Result struct {
	// URL is the target; with a Source, only the server connected to.
	URL string
	// Method is the requests' method; "" with a Source, whose requests
	// have their own.
	Method string
	// Connections is how many connections the run kept open.
	Connections int
	// Loops is how many event loops drove them.
	Loops int
	// Pipeline is how many requests each connection kept in flight.
	Pipeline int
	// Rate is the requests per second asked for; 0 in the closed model.
	Rate float64
	// Stages is the open model's rate curve when it changed in stages
	// (load.Config.Stages, as gust load --stages reads it): the whole
	// run's, also in a shard's result; "" otherwise.
	Stages string
	// Speed is Config.Speed: with a Source, requests went out at their
	// recorded times scaled by Speed (an open model without a flat rate).
	Speed float64
	// KeepAlive is false when every request had a connection of its own.
	KeepAlive bool
	// Protocol is the protocol spoken: "" for HTTP/1.1 (so that its
	// reports read as before), "h2c" for HTTP/2 with prior knowledge over
	// TCP, "h2" for HTTP/2 over TLS, "auto" when each connection spoke
	// what the server picked by ALPN (see Protocols and protocol.go),
	// "websocket" for ws:// and wss:// (see WebSocket).
	Protocol string
	// Protocols, for an "auto" run, counts the connections that spoke
	// each protocol, by ALPN name: "h2" and "http/1.1" (which a server
	// that chose nothing also gets). Like Connects it counts from the
	// start of the run, ramp included: one per successful TLS handshake.
	// Nil for a run whose protocol was not negotiated.
	Protocols map[string]int64
	// HTTP2 holds what only HTTP/2 runs measure; nil for HTTP/1.1. An
	// "auto" run has it (for its streams per connection) whether or not a
	// connection got h2: see SpokeHTTP2.
	HTTP2 *HTTP2
	// Shard is Config.Shard: the share of a larger run this result holds;
	// zero for a whole run, and for the result of Merge.
	Shard Shard
	// StartAt is Config.StartAt, when the run was asked to begin (zero if
	// it began at once). For Merge's result it is set only when every
	// agent was given the same StartAt.
	StartAt time.Time

	// Start is when measurement began (after warmup).
	Start time.Time
	// Duration is the measured time.
	Duration time.Duration
	// Interrupted is true when the run was stopped early (context cancelled).
	Interrupted bool

	// Requests counts complete responses.
	Requests int64
	// BytesRead counts bytes received, heads and bodies.
	BytesRead int64
	// BytesWritten counts bytes sent.
	BytesWritten int64
	// Connects counts connections opened, including reconnects.
	Connects int64
	// Reconnects counts connections reopened after the server or an error
	// closed one.
	Reconnects int64
	// Retried counts requests sent again on a new connection because
	// the one they went out on ended before answering them: an HTTP/1.1
	// keep-alive connection reused and closed before any byte of the
	// answer (idempotent requests only), or WebSocket messages in flight
	// when the server closed with 1001 or 1012 (going away, restarting).
	// HTTP/2's GOAWAY retries are HTTP2.Retried.
	Retried int64

	// Latency holds one value per response, from its (intended) send time.
	Latency *hdrhistogram.Histogram
	// Connect holds TCP connect times.
	Connect *hdrhistogram.Histogram
	// Lateness, in the open model, holds how long after its intended time
	// each request was actually sent.
	Lateness *hdrhistogram.Histogram
	// Late counts requests sent more than LateThreshold after their intended time.
	Late int64

	// Status counts responses per status code.
	Status map[int]int64
	// Errors counts failures per kind.
	Errors map[ErrorKind]int64
	// Timeline has one entry per second of measurement.
	Timeline []Second

	// Endpoints, with a Source, holds each endpoint that had a response or
	// an error, in endpoint id order; nil without a Source.
	Endpoints []Endpoint

	// Flows, for a run of user journeys (gust load --flow), holds its
	// iterations and checks; its steps are Endpoints. Nil otherwise.
	Flows *Flows

	// Agents, in the result of Merge, describes each result merged, so
	// that skew between agents shows; nil for a single run.
	Agents []Agent

	// Input, for a replay, says what was read from the log; nil otherwise.
	Input *Input

	// TLS, for a run over TLS (https://), describes its handshakes; nil
	// for a plain run.
	TLS *TLS

	// QUIC, for an HTTP/3 run, describes its QUIC connections:
	// handshakes, round trips, packets lost; nil otherwise.
	QUIC *QUIC

	// WebSocket, for a WebSocket run (ws:// or wss://), describes its
	// upgrades, messages, closes and pings; nil for an HTTP run.
	WebSocket *WebSocket

	// Stream, when responses were read as streams (Server-Sent Events,
	// or bodies as they arrive), describes their events; nil otherwise.
	Stream *Stream

	// GRPC, for a gRPC run (gust load --grpc-call), counts its calls by
	// status and its response messages; nil otherwise.
	GRPC *GRPC

	// Thresholds, when the run was judged (gust load or gust merge
	// --threshold), holds each threshold's verdict, in the order given;
	// nil otherwise. Merge leaves it nil: a merged result is judged anew.
	Thresholds []Verdict
}

// Scheduled reports whether requests had intended send times (the open
// model: a flat Rate, Stages, or recorded times at a Speed), so that
// lateness was measured.
func (r *Result) Scheduled() bool { return r.Rate > 0 || r.Speed > 0 || r.Stages != "" }

// LateThreshold is how far behind schedule a request must start to count as late.
const LateThreshold = time.Millisecond

// Second is one second of a run's timeline.
type Second struct {
	// Second counts seconds since Start; the last entry may cover less
	// than a second.
	Second int
	// Requests counts the responses completed in this second.
	Requests int64
	// Errors counts the failures of this second.
	Errors int64
	// BytesRead counts the bytes received in this second.
	BytesRead int64
	// TargetRate is the requests per second the open model intended to
	// send in this second (with stages, the count the curve intends in
	// it); 0 in the closed model.
	TargetRate float64
	// P50us is the median latency of this second's responses.
	P50us int64
	// P99us is the 99th percentile latency of this second's responses.
	P99us int64
	// Hist is this second's latency histogram in HdrHistogram's compressed
	// V2 encoding, kept only when Config.IntervalHistograms is set.
	Hist []byte
}

// RPS returns responses per second over the measured duration.
func (r *Result) RPS() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Duration.Seconds()
}

// ErrorCount returns the number of errors of every kind.
func (r *Result) ErrorCount() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}
