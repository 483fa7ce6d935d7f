package main

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/internal/sse"
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

// json returns the record so far, and empties it if reset.
func (t *eventTruth) json(reset bool) []byte {
	var out sse.Truth
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
	out.FirstEvent, out.Gap = sse.NewStats(first), sse.NewStats(gap)
	b, _ := json.Marshal(out)
	return append(b, '\n')
}
