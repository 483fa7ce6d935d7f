package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gust-http/gust/internal/sse"
	"github.com/gust-http/gust/server"
)

// The Server-Sent Events endpoint of gust serve: GET /events?n=N&interval=D
// answers text/event-stream with N events (default 10; 0 streams until the
// client leaves), one every D (default 100ms), each flushed as it is
// written, so that a load test can time the first event and the gaps
// between them. Event i is "id: i" and "data: tick i". With stamp=1 its
// data is "tick i T", T the time the server sent it in Unix nanoseconds,
// and the server keeps the truth of what it sent (serve_events_truth.go):
// GET /events/truth says how long each stamped stream took from its
// request to its first event and between events, for comparing with what
// a client measured (with reset=1, from then on).

// eventsPath is where the event stream is served.
const eventsPath = "/events"

// Bounds of the endpoint's parameters.
const (
	maxEvents        = 10_000_000
	maxEventInterval = time.Hour
	defaultEvents    = 10
	defaultInterval  = 100 * time.Millisecond
)

// eventsTruthPath is where the truth of the stamped streams is served.
const eventsTruthPath = eventsPath + "/truth"

// eventsQuery is what a request for events asks for.
type eventsQuery struct {
	n        int
	interval time.Duration
	stamp    bool // stamp each event with its send time, and keep the truth
}

// eventsParams reads n, interval and stamp from a query string.
func eventsParams(rawQuery string) (eventsQuery, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return eventsQuery{}, fmt.Errorf("bad query: %v", err)
	}
	e := eventsQuery{n: defaultEvents, interval: defaultInterval}
	if v := q.Get("n"); v != "" {
		if e.n, err = strconv.Atoi(v); err != nil || e.n < 0 || e.n > maxEvents {
			return eventsQuery{}, fmt.Errorf("n=%q: give a count of events from 0 (until the client leaves) to %d", v, maxEvents)
		}
	}
	if v := q.Get("interval"); v != "" {
		if e.interval, err = time.ParseDuration(v); err != nil || e.interval < 0 || e.interval > maxEventInterval {
			return eventsQuery{}, fmt.Errorf("interval=%q: give a duration from 0 to %v, e.g. 10ms", v, maxEventInterval)
		}
	}
	switch v := q.Get("stamp"); v {
	case "", "0":
	case "1":
		e.stamp = true
	default:
		return eventsQuery{}, fmt.Errorf("stamp=%q: give 1 to stamp each event with its send time, or 0", v)
	}
	return e, nil
}

// truthReset says whether a query for the truth asks to reset it.
func truthReset(rawQuery string) bool {
	q, _ := url.ParseQuery(rawQuery)
	return q.Get("reset") == "1"
}

// streamEvents writes the events of a stream on connection conn: with an
// interval, at the ticks of the connection's clock (serve_events_clock.go),
// the handler waiting until they are sent or gone ends them; with none,
// all at once from the handler. head sends the response's head, and moves
// a handler on its loop off it, before the handler waits; write sends an
// event and says whether the client is still there. A stamped stream's
// send times go to truth; begun is when its request came. gone, if not
// nil, is closed when the client leaves.
func (ev *eventSource) streamEvents(e eventsQuery, conn string, begun time.Time, head func() bool, write func(event []byte) bool, gone <-chan struct{}) {
	var rec truthStream
	if e.stamp {
		rec = ev.truth.stream(begun)
	}
	if e.interval > 0 {
		if !head() {
			return
		}
		clock, s := ev.clocks.add(conn, e, rec, write)
		select {
		case <-s.done:
		case <-gone:
			clock.remove(s)
		}
		return
	}
	var buf []byte
	for i := 1; e.n == 0 || i <= e.n; i++ {
		var sent int64
		if e.stamp {
			now := time.Now()
			rec.sent(now)
			sent = now.UnixNano()
		}
		buf = sse.AppendTick(buf[:0], i, sent)
		if !write(buf) {
			return
		}
	}
}

// eventSource is what a server's /events handler keeps: the truth of its
// stamped streams and the clocks of its connections.
type eventSource struct {
	truth  *eventTruth
	clocks *eventClocks
}

// newEventSource returns an event source with no streams.
func newEventSource() *eventSource {
	return &eventSource{truth: newEventTruth(), clocks: newEventClocks()}
}

// eventsNative serves /events on gust/server's native API (Auto and Pooled
// modes: a streamed response needs Flush) and the rest with next.
func eventsNative(next server.Handler, mode string) server.Handler {
	ev := newEventSource()
	truth := ev.truth
	return server.HandlerFunc(func(c *server.Ctx) {
		begun := time.Now()
		switch string(c.Path()) {
		case eventsPath:
		case eventsTruthPath:
			c.SetContentType("application/json")
			c.Write(truth.json(truthReset(string(c.Query()))))
			return
		default:
			next.ServeGust(c)
			return
		}
		e, err := eventsParams(string(c.Query()))
		switch {
		case err != nil:
			c.SetStatus(http.StatusBadRequest)
			c.SetContentType("text/plain; charset=utf-8")
			c.WriteString("gust serve: " + eventsPath + ": " + err.Error() + "\n")
			return
		case mode == "inline":
			c.SetStatus(http.StatusNotImplemented)
			c.SetContentType("text/plain; charset=utf-8")
			c.WriteString("gust serve: " + eventsPath + " streams its answer, which needs --mode auto or pooled\n")
			return
		}
		c.SetContentType("text/event-stream")
		c.SetHeader("Cache-Control", "no-cache")
		ev.streamEvents(e, c.RemoteAddr().String(), begun, func() bool { return c.Flush() == nil }, func(event []byte) bool {
			c.Write(event)
			return c.Flush() == nil
		}, nil)
	})
}

// eventsNetHTTP serves /events on net/http's API and the rest with next.
func eventsNetHTTP(next http.Handler) http.Handler {
	ev := newEventSource()
	truth := ev.truth
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		begun := time.Now()
		switch r.URL.Path {
		case eventsPath:
		case eventsTruthPath:
			w.Header().Set("Content-Type", "application/json")
			w.Write(truth.json(truthReset(r.URL.RawQuery)))
			return
		default:
			next.ServeHTTP(w, r)
			return
		}
		e, err := eventsParams(r.URL.RawQuery)
		if err != nil {
			http.Error(w, "gust serve: "+eventsPath+": "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		rc := http.NewResponseController(w)
		ev.streamEvents(e, r.RemoteAddr, begun, func() bool { return rc.Flush() == nil }, func(event []byte) bool {
			if _, err := w.Write(event); err != nil {
				return false
			}
			return rc.Flush() == nil
		}, r.Context().Done())
	})
}
