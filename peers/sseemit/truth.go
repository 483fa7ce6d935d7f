package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gust-http/gust/internal/sse"
	"github.com/gust-http/gust/result"
)

// truth is the record of the events sent: each stream's time from its
// request to its first event and between its events, in gust load's
// histograms. A tick records into a recorder of its own, merged under
// one lock when the tick is done, so that clocks do not queue on each
// other per event.
type truth struct {
	mu              sync.Mutex
	streams, events int64
	first, gap      *hdrhistogram.Histogram
	pool            sync.Pool
}

// recorder collects one tick's sends.
type recorder struct {
	events     int64
	first, gap []int64
}

func newTruth() *truth {
	return &truth{first: result.NewHistogram(), gap: result.NewHistogram(),
		pool: sync.Pool{New: func() any { return &recorder{} }}}
}

// begin counts a stream begun.
func (t *truth) begin() {
	t.mu.Lock()
	t.streams++
	t.mu.Unlock()
}

// recorder returns an empty recorder for a tick.
func (t *truth) recorder() *recorder { return t.pool.Get().(*recorder) }

// sent records stream s's event sent at now.
func (r *recorder) sent(s *stream, now time.Time) {
	r.events++
	if !s.started {
		s.started = true
		r.first = append(r.first, usec(now.Sub(s.begun)))
	} else {
		r.gap = append(r.gap, usec(now.Sub(s.last)))
	}
	s.last = now
}

// done merges a tick's recorder into the record.
func (t *truth) done(r *recorder) {
	t.mu.Lock()
	t.events += r.events
	for _, v := range r.first {
		t.first.RecordValue(v)
	}
	for _, v := range r.gap {
		t.gap.RecordValue(v)
	}
	t.mu.Unlock()
	r.events, r.first, r.gap = 0, r.first[:0], r.gap[:0]
	t.pool.Put(r)
}

// usec is d in whole microseconds, within the histograms' range.
func usec(d time.Duration) int64 {
	return min(max(d.Microseconds(), result.HistMin), result.HistMax)
}

// ServeHTTP answers GET /events/truth (reset=1 empties the record after).
func (t *truth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/events/truth" {
		http.NotFound(w, r)
		return
	}
	t.mu.Lock()
	out := sse.Truth{Streams: t.streams, Events: t.events, FirstEvent: sse.NewStats(t.first), Gap: sse.NewStats(t.gap)}
	if r.URL.Query().Get("reset") == "1" {
		t.streams, t.events = 0, 0
		t.first.Reset()
		t.gap.Reset()
	}
	t.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
