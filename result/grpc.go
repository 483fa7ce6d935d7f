package result

import (
	"sort"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// GRPC is what a gRPC run (gust load --grpc-call) counted of its calls:
// each call's status, from its grpc-status trailer (or the headers of a
// trailers-only response), by name, and the response messages read. It is
// nil for other runs, so that nothing of it shows in their reports.
//
// A call with no grpc-status is counted as gRPC's clients see it: by its
// HTTP status when that is not 200 (404 UNIMPLEMENTED, 503 UNAVAILABLE,
// ...), INTERNAL otherwise; a response message over the limit counts as
// RESOURCE_EXHAUSTED, a malformed one as INTERNAL.
type GRPC struct {
	// Status counts the calls by status name: OK, CANCELLED, UNKNOWN,
	// INVALID_ARGUMENT, ... (GRPCCodeName). Every call that ended has one.
	Status map[string]int64
	// Messages counts the response messages, by their length prefixes.
	Messages int64
	// Sent counts the request messages sent on client-streaming and
	// bidirectional calls (gust load --grpc-stream-send); 0 for others.
	Sent int64

	// The streams' timings, in microseconds, each histogram from
	// NewHistogram (NewGRPC makes them; nil reads as empty). FirstMessage
	// holds each server-streaming or bidirectional call's time from its
	// intended send to its first response message, Gap the time between
	// each response message and the one before it on the same call
	// (messages that arrive in one read count as the least gap, 1 us).
	// MessageLatency holds, for bidirectional calls, the time from
	// sending each request message to the arrival of the response message
	// of the same number (the echo pattern): one value per response
	// message that has a request message of its number.
	FirstMessage, Gap, MessageLatency *hdrhistogram.Histogram
}

// grpcCodeNames are the names of gRPC's status codes 0 to 16.
var grpcCodeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED",
}

// NumGRPCCodes is the number of gRPC status codes with a name (0 to 16).
const NumGRPCCodes = len(grpcCodeNames)

// GRPCCodeName returns the name of gRPC status code c; a code gRPC does
// not define is named by its number, as CODE_17.
func GRPCCodeName(c int) string {
	if c >= 0 && c < len(grpcCodeNames) {
		return grpcCodeNames[c]
	}
	return "CODE_" + strconv.Itoa(c)
}

// NewGRPC returns an empty GRPC record with its map and histograms made.
func NewGRPC() *GRPC {
	return &GRPC{Status: make(map[string]int64), FirstMessage: NewHistogram(), Gap: NewHistogram(), MessageLatency: NewHistogram()}
}

// Add adds r's counts and histograms to g, whose map and histograms must
// be made; the histograms add exactly, as all share NewHistogram's
// settings.
func (g *GRPC) Add(r *GRPC) {
	for name, n := range r.Status {
		g.Status[name] += n
	}
	g.Messages += r.Messages
	g.Sent += r.Sent
	for _, h := range [][2]*hdrhistogram.Histogram{{g.FirstMessage, r.FirstMessage}, {g.Gap, r.Gap}, {g.MessageLatency, r.MessageLatency}} {
		if h[1] != nil {
			h[0].Merge(h[1])
		}
	}
}

// Streamed reports whether any call streamed: messages sent on a client
// stream, or response messages timed on a server stream.
func (g *GRPC) Streamed() bool {
	return g != nil && (g.Sent > 0 || count(g.FirstMessage) > 0 || count(g.MessageLatency) > 0)
}

// count is h's number of values; 0 for nil.
func count(h *hdrhistogram.Histogram) int64 {
	if h == nil {
		return 0
	}
	return h.TotalCount()
}

// Calls returns the number of calls that ended with a status.
func (g *GRPC) Calls() int64 {
	var n int64
	for _, v := range g.Status {
		n += v
	}
	return n
}

// Failed returns the number of calls whose status is not OK; error_rate
// counts them as failed requests.
func (g *GRPC) Failed() int64 {
	if g == nil {
		return 0
	}
	return g.Calls() - g.Status["OK"]
}

// Names returns the status names counted, OK first, then the most
// frequent, ties by name.
func (g *GRPC) Names() []string {
	names := make([]string, 0, len(g.Status))
	for name := range g.Status {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if (a == "OK") != (b == "OK") {
			return a == "OK"
		}
		if g.Status[a] != g.Status[b] {
			return g.Status[a] > g.Status[b]
		}
		return a < b
	})
	return names
}

// addGRPC adds r's GRPC record to out's, making out's on first use, so
// that it stays nil unless a part made gRPC calls.
func (out *Result) addGRPC(r *Result) {
	if r.GRPC == nil {
		return
	}
	if out.GRPC == nil {
		out.GRPC = NewGRPC()
	}
	out.GRPC.Add(r.GRPC)
}
