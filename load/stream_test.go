package load_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/report"
)

// eventServer answers /events?n=N with N Server-Sent Events 20ms apart,
// each event written in two flushed halves (so an event's end and the
// next one's start arrive in separate reads); /pieces?n=N writes N
// flushed pieces of plain text.
func eventServer(t *testing.T, h2c bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		rc := http.NewResponseController(w)
		if r.URL.Path == "/events" {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		for i := 0; i < n; i++ {
			if i > 0 {
				time.Sleep(20 * time.Millisecond)
			}
			if r.URL.Path == "/events" {
				fmt.Fprintf(w, ": comment\nid: %d\ndata: ", i)
				rc.Flush()
				fmt.Fprintf(w, "tick %d\n\n", i)
			} else {
				fmt.Fprintf(w, "piece %d\n", i)
			}
			rc.Flush()
		}
	})
	srv := httptest.NewUnstartedServer(h)
	if h2c {
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestStreamedResponses: events (or pieces) are counted exactly, the first
// event is timed from the request, and the gaps between events are the
// server's 20ms,
// over HTTP/1.1 (text/event-stream found by itself, or --sse) and h2c
// (--sse), read with the kernel's receive stamps or not; a body read with
// --stream counts its pieces. (A late read of
// one event shortens the next gap, so the median is what is checked.)
func TestStreamedResponses(t *testing.T) {
	for _, tc := range []struct {
		name       string
		h2c        bool
		path       string
		cfg        load.Config
		sse        bool
		wantEvents int64
	}{
		{"HTTP/1.1, text/event-stream", false, "/events?n=5", load.Config{}, true, 5 * 8},
		{"HTTP/1.1, --sse", false, "/events?n=5", load.Config{SSE: true}, true, 5 * 8},
		{"h2c, --sse", true, "/events?n=5", load.Config{HTTP2: true, SSE: true, Streams: 4}, true, 5 * 8},
		{"HTTP/1.1, --stream", false, "/pieces?n=5", load.Config{Stream: true}, false, 5 * 8},
		{"HTTP/1.1, --sse, kernel stamps", false, "/events?n=5", load.Config{SSE: true, RXStamps: true}, true, 5 * 8},
		{"h2c, --sse, kernel stamps", true, "/events?n=5", load.Config{HTTP2: true, SSE: true, Streams: 4, RXStamps: true}, true, 5 * 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := eventServer(t, tc.h2c)
			cfg := tc.cfg
			cfg.URL, cfg.Connections, cfg.Loops, cfg.Requests, cfg.Timeout = srv.URL+tc.path, 2, 1, 8, 10*time.Second
			res, err := load.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := res.Stream
			if s == nil {
				t.Fatal("no stream section")
			}
			if s.SSE != tc.sse || s.Streams != 8 || s.Events != tc.wantEvents {
				t.Errorf("sse %v, %d streams, %d events; want sse %v, 8 streams, %d events", s.SSE, s.Streams, s.Events, tc.sse, tc.wantEvents)
			}
			if got := s.FirstEvent.TotalCount(); got != 8 {
				t.Errorf("%d first events timed, want 8", got)
			}
			if got := s.Gap.TotalCount(); got != tc.wantEvents-8 {
				t.Errorf("%d gaps timed, want %d", got, tc.wantEvents-8)
			}
			if p := s.Gap.ValueAtQuantile(50); p < 18_000 {
				t.Errorf("the gaps are under the server's 20ms: p50 %dus", p)
			}
			if d := s.Duration.ValueAtQuantile(50); d < 80_000 {
				t.Errorf("streams of 5 events 20ms apart lasted %dus (p50)", d)
			}
			if s.FirstByte.TotalCount() != 8 || s.FirstEvent.Max() > s.Duration.Max() {
				t.Errorf("first byte %d values; first event max %d, duration max %d", s.FirstByte.TotalCount(), s.FirstEvent.Max(), s.Duration.Max())
			}
		})
	}
	t.Run("not streamed by default", func(t *testing.T) {
		srv := eventServer(t, false)
		res, err := load.Run(context.Background(), load.Config{URL: srv.URL + "/pieces?n=2", Connections: 1, Requests: 2, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stream != nil {
			t.Errorf("a plain body was read as a stream: %+v", res.Stream)
		}
	})
}

// TestStreamedResponsesMergeExactly: a result with streams written as
// JSON and read back, twice, adds up to twice its counts and histograms.
func TestStreamedResponsesMergeExactly(t *testing.T) {
	srv := eventServer(t, false)
	res, err := load.Run(context.Background(), load.Config{URL: srv.URL + "/events?n=3", Connections: 2, Loops: 1, Requests: 4, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := report.NewSummary(res)
	if s.SSE == nil || s.Stream != nil || s.SSE.Events != 12 || s.SSE.EventsPerStream != 3 {
		t.Fatalf("summary sse %+v, stream %+v", s.SSE, s.Stream)
	}
	back, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if back.Stream == nil || back.Stream.Events != 12 || back.Stream.Gap.TotalCount() != res.Stream.Gap.TotalCount() || back.Stream.Gap.Max() != res.Stream.Gap.Max() {
		t.Fatalf("read back: %+v", back.Stream)
	}
	back.Add(back)
	if back.Stream.Events != 24 || back.Stream.Streams != 8 || back.Stream.FirstEvent.TotalCount() != 8 {
		t.Errorf("added to itself: %d events, %d streams, %d first events", back.Stream.Events, back.Stream.Streams, back.Stream.FirstEvent.TotalCount())
	}
}
