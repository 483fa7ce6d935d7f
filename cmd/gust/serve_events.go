package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gust-http/gust/server"
)

// The Server-Sent Events endpoint of gust serve: GET /events?n=N&interval=D
// answers text/event-stream with N events (default 10; 0 streams until the
// client leaves), one every D (default 100ms), each flushed as it is
// written, so that a load test can time the first event and the gaps
// between them. Event i is "id: i" and "data: tick i".

// eventsPath is where the event stream is served.
const eventsPath = "/events"

// Bounds of the endpoint's parameters.
const (
	maxEvents        = 10_000_000
	maxEventInterval = time.Hour
	defaultEvents    = 10
	defaultInterval  = 100 * time.Millisecond
)

// eventsParams reads n and interval from a query string.
func eventsParams(rawQuery string) (n int, interval time.Duration, err error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return 0, 0, fmt.Errorf("bad query: %v", err)
	}
	n, interval = defaultEvents, defaultInterval
	if v := q.Get("n"); v != "" {
		if n, err = strconv.Atoi(v); err != nil || n < 0 || n > maxEvents {
			return 0, 0, fmt.Errorf("n=%q: give a count of events from 0 (until the client leaves) to %d", v, maxEvents)
		}
	}
	if v := q.Get("interval"); v != "" {
		if interval, err = time.ParseDuration(v); err != nil || interval < 0 || interval > maxEventInterval {
			return 0, 0, fmt.Errorf("interval=%q: give a duration from 0 to %v, e.g. 10ms", v, maxEventInterval)
		}
	}
	return n, interval, nil
}

// appendEvent appends event i of the stream.
func appendEvent(b []byte, i int) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, "\ndata: tick "...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, "\n\n"...)
}

// streamEvents writes the events, waiting interval before each one after
// the first; write sends one and says whether the client is still there.
func streamEvents(n int, interval time.Duration, write func(event []byte) bool) {
	var buf []byte
	for i := 1; n == 0 || i <= n; i++ {
		if i > 1 && interval > 0 {
			time.Sleep(interval)
		}
		buf = appendEvent(buf[:0], i)
		if !write(buf) {
			return
		}
	}
}

// eventsNative serves /events on gust/server's native API (Auto and Pooled
// modes: a streamed response needs Flush) and the rest with next.
func eventsNative(next server.Handler, mode string) server.Handler {
	return server.HandlerFunc(func(c *server.Ctx) {
		if string(c.Path()) != eventsPath {
			next.ServeGust(c)
			return
		}
		n, interval, err := eventsParams(string(c.Query()))
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
		streamEvents(n, interval, func(event []byte) bool {
			c.Write(event)
			return c.Flush() == nil
		})
	})
}

// eventsNetHTTP serves /events on net/http's API and the rest with next.
func eventsNetHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != eventsPath {
			next.ServeHTTP(w, r)
			return
		}
		n, interval, err := eventsParams(r.URL.RawQuery)
		if err != nil {
			http.Error(w, "gust serve: "+eventsPath+": "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		rc := http.NewResponseController(w)
		streamEvents(n, interval, func(event []byte) bool {
			if _, err := w.Write(event); err != nil {
				return false
			}
			return rc.Flush() == nil
		})
	})
}
