package result

import (
	"sort"
	"strconv"
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

// NewGRPC returns an empty GRPC record with its map made.
func NewGRPC() *GRPC { return &GRPC{Status: make(map[string]int64)} }

// Add adds r's counts to g, whose map must be made.
func (g *GRPC) Add(r *GRPC) {
	for name, n := range r.Status {
		g.Status[name] += n
	}
	g.Messages += r.Messages
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
