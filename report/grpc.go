package report

import (
	"fmt"
	"strings"

	"github.com/gust-http/gust/result"
)

// GRPCStats is Summary.GRPC: a gRPC run's calls by status name and the
// response messages read, as result.GRPC counts them; left out for other
// runs.
type GRPCStats struct {
	// Status counts the calls by status name (OK, UNAVAILABLE, ...).
	Status map[string]int64 `json:"status"`
	// Messages counts the response messages.
	Messages int64 `json:"messages"`
}

// newGRPCStats describes g; nil for nil.
func newGRPCStats(g *result.GRPC) *GRPCStats {
	if g == nil {
		return nil
	}
	out := &GRPCStats{Status: make(map[string]int64, len(g.Status)), Messages: g.Messages}
	for name, n := range g.Status {
		out.Status[name] = n
	}
	return out
}

// grpcResult rebuilds result.GRPC from a summary's GRPC (nil for nil).
func grpcResult(s *GRPCStats) (*result.GRPC, error) {
	if s == nil {
		return nil, nil
	}
	out := result.NewGRPC()
	for name, n := range s.Status {
		if n < 0 {
			return nil, fmt.Errorf("grpc.status.%s is negative (%d): the result was changed or cut", name, n)
		}
		out.Status[name] = n
	}
	if s.Messages < 0 {
		return nil, fmt.Errorf("grpc.messages is negative (%d): the result was changed or cut", s.Messages)
	}
	out.Messages = s.Messages
	return out, nil
}

// grpcFacts is the gRPC line of Text: calls by status, OK first, and
// messages; none for other runs.
func grpcFacts(r *result.Result) []fact {
	g := r.GRPC
	if g == nil {
		return nil
	}
	var parts []string
	for _, name := range g.Names() {
		parts = append(parts, fmt.Sprintf("%s %s", name, formatCount(g.Status[name])))
	}
	if len(parts) == 0 {
		parts = append(parts, "no call ended")
	}
	line := fmt.Sprintf("%s; %s", strings.Join(parts, ", "), plural(g.Messages, "response message", "response messages"))
	return []fact{{"gRPC", line}}
}
