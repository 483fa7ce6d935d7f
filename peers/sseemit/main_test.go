package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/sse"
	"github.com/gust-http/gust/load"
)

// listen serves event streams on a loopback port and the truth on
// another, as main does.
func listen(t *testing.T) (addr string, tr *truth, truthURL string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	tr = newTruth()
	ts := httptest.NewServer(tr)
	t.Cleanup(ts.Close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c, tr)
		}
	}()
	return ln.Addr().String(), tr, ts.URL + "/events/truth"
}

// TestGustLoadCountsEveryEventTheEmitterSent runs gust load's SSE reader
// over 2 connections of 4 streams, 8 streams of 5 events 5 ms apart:
// every stream ends, gust counts the events the emitter's truth says it
// sent, and every gap either side saw is at least the interval.
func TestGustLoadCountsEveryEventTheEmitterSent(t *testing.T) {
	addr, _, truthURL := listen(t)
	const streams, events, interval = 8, 5, 5 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := load.Run(ctx, load.Config{
		URL: "http://" + addr + "/events?n=5&interval=5ms&stamp=1", Connections: 2, Streams: 4, HTTP2: true,
		Requests: streams, SSE: true, Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.ErrorCount() != 0 || r.Status[200] != streams {
		t.Fatalf("status %v, errors %v: want %d answered 200", r.Status, r.Errors, streams)
	}
	if r.Stream == nil || r.Stream.Events != streams*events || r.Stream.Streams != streams {
		t.Fatalf("stream record %+v: want %d streams of %d events", r.Stream, streams, events)
	}
	resp, err := http.Get(truthURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got sse.Truth
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Streams != streams || got.Events != streams*events || got.Gap.Count != streams*(events-1) {
		t.Fatalf("the truth %+v: want %d streams, %d events, %d gaps", got, streams, streams*events, streams*(events-1))
	}
	// The emitter waits an interval after each write; gust times a gap
	// when it reads, so one late read and a prompt one make a shorter
	// gap: its count and median are held, not its least.
	if iv := interval.Microseconds(); got.Gap.Min < iv || r.Stream.Gap.TotalCount() != got.Gap.Count || r.Stream.Gap.ValueAtQuantile(50) < iv*9/10 {
		t.Errorf("gaps: the emitter's %d, shortest %d us; gust's %d, p50 %d us; want as many, at least %d us (gust's p50 90%% of it)",
			got.Gap.Count, got.Gap.Min, r.Stream.Gap.TotalCount(), r.Stream.Gap.ValueAtQuantile(50), iv)
	}
}

// TestEmitterRefusesWhatItDoesNotServe: a path or a query it does not
// know is a 400.
func TestEmitterRefusesWhatItDoesNotServe(t *testing.T) {
	addr, _, _ := listen(t)
	for _, path := range []string{"/", "/events?n=3", "/events?n=x&interval=5ms", "/events?n=1&interval=-1s"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := load.Run(ctx, load.Config{URL: "http://" + addr + path, Connections: 1, HTTP2: true, Requests: 1, Timeout: 5 * time.Second})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Status[400] != 1 {
			t.Errorf("%s: status %v, want one 400", path, r.Status)
		}
	}
}
