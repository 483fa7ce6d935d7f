package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/internal/sse"
	"github.com/gust-http/gust/result"
)

// Streamed responses: a response read as a stream (Config.SSE, Config.Stream,
// or any text/event-stream answer) has its head timed (first byte), its
// events counted as they arrive (Server-Sent Events by their blank lines,
// or each piece of the body that one read brought), the first of them and
// the gaps between them timed, and its end. A stream's state is a few
// words in its session (streamReader); the loop's counters and
// histograms are made on the first stream (streamStats).

// streamStats is one loop's counts of streamed responses.
type streamStats struct {
	sse                               bool
	streams, events                   int64
	firstByte, firstEvent, gap, total *hdrhistogram.Histogram
}

// streamReader is the state of the response being read as a stream, kept
// by its session.
type streamReader struct {
	on     bool // this response is read as a stream
	sse    bool // its events are Server-Sent Events, not pieces
	events int64
	last   int64 // when the last event arrived (loop clock); 0 before the first
	scan   sse.Scanner
}

// begin starts reading a response as a stream when the run or its head
// asks for it (eventStream: its Content-Type is text/event-stream), and
// records its first byte. It reports whether the response is a stream.
func (r *streamReader) begin(k sink, x exchange, eventStream, sseAll, streamAll bool) bool {
	*r = streamReader{on: eventStream || sseAll || streamAll, sse: eventStream || sseAll}
	if r.on {
		k.streamHead(x, r.sse)
	}
	return r.on
}

// body feeds a piece of the body to the stream.
func (r *streamReader) body(k sink, x exchange, p []byte) {
	if !r.on || len(p) == 0 {
		return
	}
	n := 1
	if r.sse {
		n = r.scan.Feed(p)
	}
	if n > 0 {
		r.last = k.streamed(x, n, r.last)
		r.events += int64(n)
	}
}

// end records the stream's end (its response complete).
func (r *streamReader) end(k sink, x exchange) {
	if r.on {
		k.streamEnd(x, r.events)
		r.on = false
	}
}

// stream returns the loop's stream counters, made on first use.
func (l *loop) stream(sse bool) *streamStats {
	s := l.stats.stream
	if s == nil {
		s = &streamStats{firstByte: result.NewHistogram(), firstEvent: result.NewHistogram(), gap: result.NewHistogram(), total: result.NewHistogram()}
		l.stats.stream = s
	}
	s.sse = s.sse || sse
	return s
}

// streamHead records the head of x's response, read as a stream.
func (d *delivery) streamHead(x exchange, sse bool) {
	if !d.l.recording {
		return
	}
	d.l.stream(sse).firstByte.RecordValue(usec(d.now - x.sent))
}

// streamed records n events of x's response arriving now; last is when
// the one before them arrived (0: these are its first). It returns now.
func (d *delivery) streamed(x exchange, n int, last int64) int64 {
	if !d.l.recording {
		return d.now
	}
	s := d.l.stream(false)
	s.events += int64(n)
	if last == 0 {
		s.firstEvent.RecordValue(usec(d.now - x.sent))
		n-- // the first has no gap
	} else {
		s.gap.RecordValue(usec(d.now - last))
		n--
	}
	if n > 0 {
		s.gap.RecordValues(result.HistMin, int64(n)) // arrived in the same read: no gap (the least value, 1 us)
	}
	return d.now
}

// streamEnd records the end of x's streamed response.
func (d *delivery) streamEnd(x exchange, events int64) {
	if !d.l.recording {
		return
	}
	s := d.l.stream(false)
	s.streams++
	s.total.RecordValue(usec(d.now - x.sent))
}

// result returns s as a result.Stream; nil s gives nil.
func (s *streamStats) result() *result.Stream {
	if s == nil {
		return nil
	}
	return &result.Stream{SSE: s.sse, Streams: s.streams, Events: s.events,
		FirstByte: s.firstByte, FirstEvent: s.firstEvent, Gap: s.gap, Duration: s.total}
}
