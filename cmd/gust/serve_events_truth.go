package main

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// The truth of /events?stamp=1: the server's own times for each stamped
// stream, from its request's arrival to its first event's send and
// between its events' sends, in microseconds with the histograms gust
// load uses, so that what a client reports of the same streams can be
// held against them. GET /events/truth returns them as JSON
// (eventTruthJSON); with reset=1 it also starts them afresh, so that they
// cover the window a client measured (its warm-up left out). Streams record into a few shards, each behind its own
// lock, so that thousands of streams do not queue on one.

// truthShards is how many shards a server's truth is split over.
const truthShards = 16

// eventTruth is a server's record of its stamped streams. Its shards are
// made with the first stamped stream: a server never asked for one
// carries none.
type eventTruth struct {
	once   sync.Once
	shards []truthShard
	next   atomic.Uint32
}

// truthShard is one shard of the record.
type truthShard struct {
	mu              sync.Mutex
	streams, events int64
	first, gap      *hdrhistogram.Histogram
}

// newEventTruth returns an empty record.
func newEventTruth() *eventTruth { return &eventTruth{} }

// truthStream records one stream's sends.
type truthStream struct {
	shard       *truthShard
	begun, last time.Time
}

// stream starts recording a stream whose request came at begun.
func (t *eventTruth) stream(begun time.Time) truthStream {
	t.once.Do(t.make)
	sh := &t.shards[t.next.Add(1)%truthShards]
	sh.mu.Lock()
	sh.streams++
	sh.mu.Unlock()
	return truthStream{shard: sh, begun: begun}
}

// make makes the shards.
func (t *eventTruth) make() {
	t.shards = make([]truthShard, truthShards)
	for i := range t.shards {
		t.shards[i].first, t.shards[i].gap = result.NewHistogram(), result.NewHistogram()
	}
}

// sent records an event sent at now.
func (s *truthStream) sent(now time.Time) {
	sh := s.shard
	sh.mu.Lock()
	sh.events++
	if s.last.IsZero() {
		sh.first.RecordValue(truthUsec(now.Sub(s.begun)))
	} else {
		sh.gap.RecordValue(truthUsec(now.Sub(s.last)))
	}
	sh.mu.Unlock()
	s.last = now
}

// truthUsec is d in whole microseconds, within the histograms' range.
func truthUsec(d time.Duration) int64 {
	return min(max(d.Microseconds(), result.HistMin), result.HistMax)
}

// eventTruthJSON is GET /events/truth's answer.
type eventTruthJSON struct {
	// Streams and Events count the stamped streams begun and their events
	// sent.
	Streams int64 `json:"streams"`
	Events  int64 `json:"events"`
	// FirstEvent is each stream's time from its request's arrival to its
	// first event's send; Gap the time between a stream's sends.
	FirstEvent truthStats `json:"first_event"`
	Gap        truthStats `json:"gap"`
}

// truthStats describes a histogram in microseconds, as gust load's JSON
// does.
type truthStats struct {
	Count int64   `json:"count"`
	Min   int64   `json:"min"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	Max   int64   `json:"max"`
}

// json returns the record so far, and empties it if reset.
func (t *eventTruth) json(reset bool) []byte {
	var out eventTruthJSON
	t.once.Do(t.make)
	first, gap := result.NewHistogram(), result.NewHistogram()
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		out.Streams += sh.streams
		out.Events += sh.events
		first.Merge(sh.first)
		gap.Merge(sh.gap)
		if reset {
			sh.streams, sh.events = 0, 0
			sh.first.Reset()
			sh.gap.Reset()
		}
		sh.mu.Unlock()
	}
	out.FirstEvent, out.Gap = newTruthStats(first), newTruthStats(gap)
	b, _ := json.Marshal(out)
	return append(b, '\n')
}

// newTruthStats describes h.
func newTruthStats(h *hdrhistogram.Histogram) truthStats {
	if h.TotalCount() == 0 {
		return truthStats{}
	}
	return truthStats{Count: h.TotalCount(), Min: h.Min(), Mean: float64(int64(h.Mean()*10)) / 10,
		P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90), P99: h.ValueAtQuantile(99), Max: h.Max()}
}
