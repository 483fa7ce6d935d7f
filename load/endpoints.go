package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// endpointStats is one loop's per-endpoint counters, indexed by endpoint
// id. The slices grow when a new id shows up and histograms are made on an
// endpoint's first response, so steady state allocates nothing.
type endpointStats struct {
	requests  []int64
	errors    []int64
	status5xx []int64
	latency   []*hdrhistogram.Histogram
}

// slot returns the index for meta's endpoint, growing the slices to hold
// it, or -1 when the request has no endpoint.
func (s *endpointStats) slot(meta uint32) int {
	id := int(meta&metaEndpoint) - 1
	if id < 0 {
		return -1
	}
	if id >= len(s.requests) {
		n := max(id+1, 2*len(s.requests))
		s.requests = append(s.requests, make([]int64, n-len(s.requests))...)
		s.errors = append(s.errors, make([]int64, n-len(s.errors))...)
		s.status5xx = append(s.status5xx, make([]int64, n-len(s.status5xx))...)
		s.latency = append(s.latency, make([]*hdrhistogram.Histogram, n-len(s.latency))...)
	}
	return id
}

// record counts one response of meta's endpoint.
func (s *endpointStats) record(meta uint32, usec int64, status int) {
	i := s.slot(meta)
	if i < 0 {
		return
	}
	s.requests[i]++
	if status >= 500 {
		s.status5xx[i]++
	}
	h := s.latency[i]
	if h == nil {
		h = result.NewEndpointHistogram()
		s.latency[i] = h
	}
	h.RecordValue(usec)
}

// fail counts one failed request of meta's endpoint.
func (s *endpointStats) fail(meta uint32) {
	if i := s.slot(meta); i >= 0 {
		s.errors[i]++
	}
}

// reset forgets every count, keeping the memory.
func (s *endpointStats) reset() {
	clear(s.requests)
	clear(s.errors)
	clear(s.status5xx)
	for _, h := range s.latency {
		if h != nil {
			h.Reset()
		}
	}
}

// mergeEndpoints adds every loop's endpoint counts into one list, named
// by names and in id order, leaving out endpoints with neither responses
// nor errors.
func mergeEndpoints(loops []*loop, names []string) []result.Endpoint {
	n := 0
	for _, l := range loops {
		n = max(n, len(l.eps.requests))
	}
	var out []result.Endpoint
	for id := 0; id < n; id++ {
		ep := result.Endpoint{Latency: result.NewEndpointHistogram()}
		if id < len(names) {
			ep.Name = names[id]
		}
		for _, l := range loops {
			s := &l.eps
			if id >= len(s.requests) {
				continue
			}
			ep.Requests += s.requests[id]
			ep.Errors += s.errors[id]
			ep.Status5xx += s.status5xx[id]
			if s.latency[id] != nil {
				ep.Latency.Merge(s.latency[id])
			}
		}
		if ep.Requests > 0 || ep.Errors > 0 {
			out = append(out, ep)
		}
	}
	return out
}
