package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gust-http/gust/result"
)

// HTTP2Stats is Summary.HTTP2: result.HTTP2 as JSON.
type HTTP2Stats struct {
	// Streams is how many streams each connection kept in flight at most
	// (gust load -m), before the server's limit.
	Streams int `json:"streams"`
	// Resets counts RST_STREAM frames received, by error code name.
	Resets map[string]int64 `json:"resets"`
	// GoAways counts GOAWAY frames received, by error code name.
	GoAways map[string]int64 `json:"goaways"`
	// Retried counts requests sent again on a new connection after a
	// GOAWAY said the server never processed them.
	Retried int64 `json:"retried"`
}

// newHTTP2Stats describes h; nil for nil (an HTTP/1.1 run).
func newHTTP2Stats(h *result.HTTP2) *HTTP2Stats {
	if h == nil {
		return nil
	}
	return &HTTP2Stats{Streams: h.Streams, Resets: orEmptyMap(h.Resets), GoAways: orEmptyMap(h.GoAways), Retried: h.Retried}
}

// result turns s back into a result.HTTP2; nil for nil.
func (s *HTTP2Stats) result() *result.HTTP2 {
	if s == nil {
		return nil
	}
	h := result.NewHTTP2(s.Streams)
	for code, n := range s.Resets {
		h.Resets[code] = n
	}
	for code, n := range s.GoAways {
		h.GoAways[code] = n
	}
	h.Retried = s.Retried
	return h
}

// protocolParts describe an HTTP/2 run's protocol for the Load line, e.g.
// "HTTP/2 (h2c)", "10 streams per connection", or an auto run's,
// "HTTP/2 or HTTP/1.1 by ALPN", "10 streams per h2 connection"; nil for
// HTTP/1.1.
func protocolParts(r *result.Result) []string {
	if r.QUIC != nil {
		return []string{"HTTP/3 (h3)", plural(int64(r.QUIC.Streams), "stream", "streams") + " per connection"}
	}
	if r.HTTP2 == nil {
		return nil
	}
	streams := plural(int64(r.HTTP2.Streams), "stream", "streams")
	if r.Protocol == result.ProtoAuto {
		return []string{"HTTP/2 or HTTP/1.1 by ALPN", streams + " per h2 connection"}
	}
	return []string{"HTTP/2 (" + r.Protocol + ")", streams + " per connection"}
}

// protocolsFact is an auto run's Protocols line: how many connections
// spoke each protocol, h2 first, e.g. "h2: 48 connections, http/1.1: 2
// connections"; false for a run whose protocol was not negotiated.
func protocolsFact(r *result.Result) (fact, bool) {
	if r.Protocols == nil {
		return fact{}, false
	}
	names := []string{result.ProtoH2, result.ProtoHTTP11}
	var others []string
	for proto := range r.Protocols {
		if proto != result.ProtoH2 && proto != result.ProtoHTTP11 {
			others = append(others, proto)
		}
	}
	sort.Strings(others)
	parts := make([]string, 0, len(names)+len(others))
	for _, proto := range append(names, others...) {
		parts = append(parts, proto+": "+plural(r.Protocols[proto], "connection", "connections"))
	}
	return fact{"Protocols", strings.Join(parts, ", ")}, true
}

// http2Fact is the HTTP/2 line of the summary: frames that ended streams
// or connections, by code, and retries, e.g. "RST_STREAM INTERNAL_ERROR:
// 50, GOAWAY NO_ERROR: 2, 12 retried"; false when no connection spoke
// HTTP/2.
func http2Fact(r *result.Result) (fact, bool) {
	h := r.HTTP2
	if !r.SpokeHTTP2() {
		return fact{}, false
	}
	var parts []string
	parts = appendCodes(parts, "RST_STREAM", h.Resets)
	parts = appendCodes(parts, "GOAWAY", h.GoAways)
	if h.Retried > 0 {
		parts = append(parts, formatCount(h.Retried)+" retried")
	}
	if len(parts) == 0 {
		parts = append(parts, "no RST_STREAM, no GOAWAY")
	}
	return fact{"HTTP/2", strings.Join(parts, ", ")}, true
}

// appendCodes appends "FRAME CODE: n" for every code counted, by name.
func appendCodes(parts []string, frame string, counts map[string]int64) []string {
	codes := make([]string, 0, len(counts))
	for code, n := range counts {
		if n != 0 {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes)
	for _, code := range codes {
		parts = append(parts, fmt.Sprintf("%s %s: %s", frame, code, formatCount(counts[code])))
	}
	return parts
}
