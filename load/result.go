package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// ErrorKind classifies a failed request or connection attempt.
type ErrorKind uint8

// The kinds of error a run counts. Every failed request is counted once,
// under the first thing that went wrong.
const (
	ErrConnectRefused ErrorKind = iota // the target refused the connection
	ErrConnectTimeout                  // no connection within Timeout
	ErrConnect                         // any other failure to connect
	ErrReset                           // connection reset or broken pipe
	ErrClosed                          // the server closed the connection before answering
	ErrReadTimeout                     // no complete response within Timeout
	ErrProtocol                        // the response could not be parsed
	numErrorKinds
)

var errorKindNames = [numErrorKinds]string{
	ErrConnectRefused: "connect_refused",
	ErrConnectTimeout: "connect_timeout",
	ErrConnect:        "connect_error",
	ErrReset:          "reset",
	ErrClosed:         "closed",
	ErrReadTimeout:    "read_timeout",
	ErrProtocol:       "protocol",
}

// String returns the kind's name as used in reports, e.g. "connect_refused".
func (k ErrorKind) String() string {
	if k < numErrorKinds {
		return errorKindNames[k]
	}
	return "unknown"
}

// ErrorKinds lists every ErrorKind in report order.
func ErrorKinds() []ErrorKind {
	kinds := make([]ErrorKind, numErrorKinds)
	for i := range kinds {
		kinds[i] = ErrorKind(i)
	}
	return kinds
}

// Histogram settings shared by every histogram of a run: microseconds from
// 1 us to 1 hour with 3 significant digits.
const (
	HistMin     = 1
	HistMax     = int64(time.Hour / time.Microsecond)
	HistSigFigs = 3
)

// NewHistogram returns an empty latency histogram in microseconds with the
// settings every gust histogram uses, so that any two can be merged exactly.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistMin, HistMax, HistSigFigs)
}

// Result is what a run measured. Latencies are in microseconds.
type Result struct {
	URL         string
	Method      string
	Connections int
	Loops       int
	Pipeline    int
	Rate        float64 // requests/s asked for; 0 in the closed model
	// Speed is Config.Speed: with a Source, requests went out at their
	// recorded times scaled by Speed (an open model without a flat rate).
	Speed     float64
	KeepAlive bool
	// Shard is Config.Shard: the share of a larger run this result holds;
	// zero for a whole run, and for the result of Merge.
	Shard Shard
	// StartAt is Config.StartAt, when the run was asked to begin (zero if
	// it began at once). For Merge's result it is set only when every
	// agent was given the same StartAt.
	StartAt time.Time

	Start    time.Time     // when measurement began (after warmup)
	Duration time.Duration // measured time
	// Interrupted is true when the run was stopped early (context cancelled).
	Interrupted bool

	Requests     int64 // complete responses
	BytesRead    int64 // bytes received, heads and bodies
	BytesWritten int64 // bytes sent
	Connects     int64 // connections opened, including reconnects
	Reconnects   int64 // connections reopened after the server or an error closed one

	// Latency holds one value per response, from its (intended) send time.
	Latency *hdrhistogram.Histogram
	// Connect holds TCP connect times.
	Connect *hdrhistogram.Histogram
	// Lateness, in the open model, holds how long after its intended time
	// each request was actually sent.
	Lateness *hdrhistogram.Histogram
	// Late counts requests sent more than LateThreshold after their intended time.
	Late int64

	Status   map[int]int64       // responses per status code
	Errors   map[ErrorKind]int64 // failures per kind
	Timeline []Second            // one entry per second of measurement

	// Endpoints, with a Source, holds each endpoint that had a response or
	// an error, in endpoint id order; nil without a Source.
	Endpoints []Endpoint

	// Agents, in the result of Merge, describes each result merged, so
	// that skew between agents shows; nil for a single run.
	Agents []Agent
}

// Scheduled reports whether requests had intended send times (the open
// model: a flat Rate, or recorded times at a Speed), so that lateness was
// measured.
func (r *Result) Scheduled() bool { return r.Rate > 0 || r.Speed > 0 }

// LateThreshold is how far behind schedule a request must start to count as late.
const LateThreshold = time.Millisecond

// Second is one second of a run's timeline.
type Second struct {
	Second    int   // seconds since Start; the last entry may cover less than a second
	Requests  int64 // responses completed in this second
	Errors    int64
	BytesRead int64
	P50us     int64 // latency percentiles of this second's responses
	P99us     int64
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
