package sse

import (
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The test streams gust serve's /events sends, and peers/sseemit's: their
// events' bytes and the truth of their send times, in one form for both.

// AppendTick appends event i of a test stream: "id: i" and "data: tick
// i", the data followed by " T" when sent, the send time in Unix
// nanoseconds, is not zero.
func AppendTick(b []byte, i int, sent int64) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, "\ndata: tick "...)
	b = strconv.AppendInt(b, int64(i), 10)
	if sent != 0 {
		b = append(b, ' ')
		b = strconv.AppendInt(b, sent, 10)
	}
	return append(b, "\n\n"...)
}

// Truth is what a test source says it sent (GET /events/truth).
type Truth struct {
	// Streams and Events count the stamped streams begun and their events
	// sent.
	Streams int64 `json:"streams"`
	Events  int64 `json:"events"`
	// FirstEvent is each stream's time from its request's arrival to its
	// first event's send; Gap the time between a stream's sends.
	FirstEvent Stats `json:"first_event"`
	Gap        Stats `json:"gap"`
}

// Stats describes a histogram in microseconds, as gust load's JSON does.
type Stats struct {
	Count int64   `json:"count"`
	Min   int64   `json:"min"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	Max   int64   `json:"max"`
}

// NewStats describes h; an empty one is all zeros.
func NewStats(h *hdrhistogram.Histogram) Stats {
	if h.TotalCount() == 0 {
		return Stats{}
	}
	return Stats{Count: h.TotalCount(), Min: h.Min(), Mean: float64(int64(h.Mean()*10)) / 10,
		P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90), P99: h.ValueAtQuantile(99), Max: h.Max()}
}
