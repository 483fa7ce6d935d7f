package report

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// StreamStats is Summary.SSE (Server-Sent Events) or Summary.Stream
// (bodies read as they arrive): result.Stream's counts and histograms,
// each histogram described in microseconds as Latency is and encoded as
// LatencyHdr is, so that gust merge adds them exactly. Left out when no
// response was read as a stream.
type StreamStats struct {
	// Streams counts the responses read as streams, to their end.
	Streams int64 `json:"streams"`
	// Events counts their events (or pieces).
	Events int64 `json:"events"`
	// EventsPerS is Events over the run's duration, to 0.1.
	EventsPerS float64 `json:"events_per_s"`
	// EventsPerStream is Events over Streams, to 0.01.
	EventsPerStream float64 `json:"events_per_stream"`
	// FirstByte, FirstEvent, Gap and Duration describe the times to each
	// stream's head and first event (from the intended send time), between
	// events, and to each stream's end, in microseconds.
	FirstByte  Stats `json:"first_byte"`
	FirstEvent Stats `json:"first_event"`
	Gap        Stats `json:"gap"`
	Duration   Stats `json:"duration"`
	// The histograms, encoded.
	FirstByteHdr  string `json:"first_byte_hdr"`
	FirstEventHdr string `json:"first_event_hdr"`
	GapHdr        string `json:"gap_hdr"`
	DurationHdr   string `json:"duration_hdr"`
}

// newStreamStats describes s over a run of secs seconds; it returns it as
// SSE's or Stream's, the other nil, and both nil for a nil s.
func newStreamStats(s *result.Stream, secs float64) (sse, stream *StreamStats) {
	if s == nil {
		return nil, nil
	}
	out := &StreamStats{Streams: s.Streams, Events: s.Events}
	if secs > 0 {
		out.EventsPerS = round(float64(s.Events)/secs, 1)
	}
	if s.Streams > 0 {
		out.EventsPerStream = round(float64(s.Events)/float64(s.Streams), 2)
	}
	for _, h := range []struct {
		hist  *hdrhistogram.Histogram
		stats *Stats
		hdr   *string
	}{
		{s.FirstByte, &out.FirstByte, &out.FirstByteHdr},
		{s.FirstEvent, &out.FirstEvent, &out.FirstEventHdr},
		{s.Gap, &out.Gap, &out.GapHdr},
		{s.Duration, &out.Duration, &out.DurationHdr},
	} {
		e := orEmpty(h.hist)
		*h.stats, *h.hdr = newStats(e), encode(e)
	}
	if s.SSE {
		return out, nil
	}
	return nil, out
}

// streamResult rebuilds result.Stream from a summary's SSE or Stream
// (nil when neither), its histograms with like's settings when empty.
func streamResult(sse, stream *StreamStats, like *hdrhistogram.Histogram) (*result.Stream, error) {
	s, key := sse, "sse"
	if s == nil {
		s, key = stream, "stream"
	}
	if s == nil {
		return nil, nil
	}
	out := &result.Stream{SSE: sse != nil, Streams: s.Streams, Events: s.Events}
	var err error
	for _, h := range []struct {
		name string
		enc  string
		dst  **hdrhistogram.Histogram
	}{
		{"first_byte_hdr", s.FirstByteHdr, &out.FirstByte},
		{"first_event_hdr", s.FirstEventHdr, &out.FirstEvent},
		{"gap_hdr", s.GapHdr, &out.Gap},
		{"duration_hdr", s.DurationHdr, &out.Duration},
	} {
		if h.enc == "" {
			return nil, fmt.Errorf("a %s result without its histogram %s.%s", key, key, h.name)
		}
		if *h.dst, err = decodeHistogram(key+"."+h.name, h.enc, like); err != nil {
			return nil, err
		}
	}
	if n := out.Duration.TotalCount(); n != out.Streams {
		return nil, fmt.Errorf("%s.duration_hdr holds %d values but streams is %d: the result was changed or cut", key, n, out.Streams)
	}
	return out, nil
}

// streamFacts are the streams' lines of Text and HTML: events, first
// event and gaps; none when no response was read as a stream.
func streamFacts(r *result.Result) []fact {
	s := r.Stream
	if s == nil {
		return nil
	}
	unit := "pieces"
	if s.SSE {
		unit = "events"
	}
	line := fmt.Sprintf("%s %s in %s", formatCount(s.Events), unit, plural(s.Streams, "stream", "streams"))
	if secs := r.Duration.Seconds(); secs > 0 {
		line += fmt.Sprintf(", %s/s", formatCount(int64(float64(s.Events)/secs)))
	}
	facts := []fact{{"Streams", line}}
	pct := func(h *hdrhistogram.Histogram) string {
		st := newStats(orEmpty(h))
		if st.Max == 0 {
			return "none"
		}
		return fmt.Sprintf("p50 %s, p99 %s, max %s", formatMicros(float64(st.P50)), formatMicros(float64(st.P99)), formatMicros(float64(st.Max)))
	}
	first := "First event"
	if !s.SSE {
		first = "First piece"
	}
	return append(facts,
		fact{"First byte", pct(s.FirstByte)},
		fact{first, pct(s.FirstEvent)},
		fact{"Gap", pct(s.Gap)},
	)
}
