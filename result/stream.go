package result

import "github.com/HdrHistogram/hdrhistogram-go"

// Stream is what a run measured of responses read as streams (gust load
// --sse, --stream, or any text/event-stream answer): their first bytes,
// their events (Server-Sent Events) or pieces (a body read as it
// arrives), the gaps between them, and how long each stream lasted. It
// is nil when no response was read so, so that nothing of it shows in
// other runs' reports.
//
// Every histogram holds microseconds and comes from NewHistogram. The
// first byte and first event are measured from the request's intended
// send time (as Latency is, so the open model corrects coordinated
// omission); a gap from the event before it on the same stream, events
// that arrive in one read counting as gaps of 0; a duration to the
// stream's end. Latency itself still holds each whole response.
type Stream struct {
	// SSE is true when events were Server-Sent Events, false when they
	// were the pieces of a body as they arrived (--stream).
	SSE bool
	// Streams counts the responses read as streams, to their end.
	Streams int64
	// Events counts their events (or pieces).
	Events int64
	// FirstByte holds each stream's time to its response head.
	FirstByte *hdrhistogram.Histogram
	// FirstEvent holds each stream's time to its first event.
	FirstEvent *hdrhistogram.Histogram
	// Gap holds the time between each event and the one before it.
	Gap *hdrhistogram.Histogram
	// Duration holds each stream's time to its end.
	Duration *hdrhistogram.Histogram
}

// NewStream returns an empty Stream record with its histograms made.
func NewStream(sse bool) *Stream {
	return &Stream{SSE: sse, FirstByte: NewHistogram(), FirstEvent: NewHistogram(), Gap: NewHistogram(), Duration: NewHistogram()}
}

// Add adds r's counts and histograms to s, whose histograms must be made.
// SSE is true once either is.
func (s *Stream) Add(r *Stream) {
	s.SSE = s.SSE || r.SSE
	s.Streams += r.Streams
	s.Events += r.Events
	for _, h := range [][2]*hdrhistogram.Histogram{{s.FirstByte, r.FirstByte}, {s.FirstEvent, r.FirstEvent}, {s.Gap, r.Gap}, {s.Duration, r.Duration}} {
		if h[1] != nil {
			h[0].Merge(h[1])
		}
	}
}

// addStream adds r's Stream record to out's, making out's on first use,
// so that it stays nil unless a part read streams.
func (out *Result) addStream(r *Result) {
	if r.Stream == nil {
		return
	}
	if out.Stream == nil {
		out.Stream = NewStream(r.Stream.SSE)
	}
	out.Stream.Add(r.Stream)
}
