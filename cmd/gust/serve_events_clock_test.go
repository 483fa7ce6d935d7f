package main

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeEventsManyStreamsOnOneH2CConnection: 40 stamped streams at
// once on one h2c connection share its clock: each gets its 4 events,
// stamped at least the interval apart, and the truth counts them all, on
// both engines and both of gust's APIs.
func TestServeEventsManyStreamsOnOneH2CConnection(t *testing.T) {
	const streams, events = 40, 4
	for _, tc := range []struct {
		name string
		cfg  serveConfig
	}{
		{"gust native auto", serveConfig{Engine: "gust", Mode: "auto", API: "native"}},
		{"gust native pooled", serveConfig{Engine: "gust", Mode: "pooled", API: "native"}},
		{"gust nethttp adapter", serveConfig{Engine: "gust", Mode: "auto", API: "nethttp"}},
		{"nethttp", serveConfig{Engine: "nethttp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Addr, tc.cfg.HTTP2 = "127.0.0.1:0", true
			lines, cancel, done := startServe(t, tc.cfg)
			defer func() {
				cancel()
				<-done
			}()
			base := "http://" + strings.Fields(strings.TrimPrefix(<-lines, "gust serve: listening on http://"))[0]
			tr := &http.Transport{Protocols: new(http.Protocols)}
			tr.Protocols.SetUnencryptedHTTP2(true)
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
			defer stop()
			var wg sync.WaitGroup
			errs := make(chan string, streams)
			for range streams {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if msg := readStamps(ctx, client, base+"/events?n=4&interval=10ms&stamp=1", events); msg != "" {
						errs <- msg
					}
				}()
			}
			wg.Wait()
			close(errs)
			for msg := range errs {
				t.Error(msg)
			}
			truth := getTruth(t, base, "")
			if truth.Streams != streams || truth.Events != streams*events || truth.Gap.Count != streams*(events-1) || truth.Gap.Min < 10_000 {
				t.Errorf("truth %+v, want %d streams of %d events, gaps from 10,000 us", truth, streams, events)
			}
		})
	}
}

// readStamps reads a stamped stream of want events over HTTP/2 and says
// what is wrong with it, or "".
func readStamps(ctx context.Context, client *http.Client, url string, want int) string {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		return "answered over " + resp.Proto
	}
	var stamps []int64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: tick ")
		if !ok {
			continue
		}
		f := strings.Fields(data)
		if len(f) != 2 || f[0] != strconv.Itoa(len(stamps)+1) {
			return "data " + data
		}
		ns, _ := strconv.ParseInt(f[1], 10, 64)
		stamps = append(stamps, ns)
	}
	if len(stamps) != want {
		return "got " + strconv.Itoa(len(stamps)) + " events, want " + strconv.Itoa(want)
	}
	for i := 1; i < len(stamps); i++ {
		if gap := time.Duration(stamps[i] - stamps[i-1]); gap < 10*time.Millisecond {
			return "events sent " + gap.String() + " apart, want at least 10ms"
		}
	}
	return ""
}

// TestEventClockEndsStreams: streams on one clock each get their events
// in order; one whose client is gone (write fails) ends at once, one
// taken off ends without another write, one with n events ends after the
// nth, and the clock, with no stream left, is forgotten.
func TestEventClockEndsStreams(t *testing.T) {
	cs := newEventClocks()
	e := eventsQuery{n: 3, interval: time.Millisecond}
	type rec struct {
		mu   sync.Mutex
		seen []string
	}
	writer := func(r *rec, failAt int) func([]byte) bool {
		return func(ev []byte) bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.seen = append(r.seen, string(ev))
			return len(r.seen) != failAt
		}
	}
	var full, gone, taken rec
	_, sFull := cs.add("c", e, truthStream{}, writer(&full, 0))
	_, sGone := cs.add("c", eventsQuery{n: 0, interval: time.Millisecond}, truthStream{}, writer(&gone, 2))
	clock, sTaken := cs.add("c", eventsQuery{n: 0, interval: time.Millisecond}, truthStream{}, writer(&taken, 0))
	deadline := time.After(10 * time.Second)
	for _, s := range []*eventStream{sFull, sGone} {
		select {
		case <-s.done:
		case <-deadline:
			t.Fatal("a stream did not end in 10 s")
		}
	}
	clock.remove(sTaken)
	select {
	case <-sTaken.done:
	default:
		t.Fatal("a stream taken off the clock is not done")
	}
	taken.mu.Lock()
	n := len(taken.seen)
	taken.mu.Unlock()
	if want := []string{"id: 1\ndata: tick 1\n\n", "id: 2\ndata: tick 2\n\n", "id: 3\ndata: tick 3\n\n"}; strings.Join(full.seen, "") != strings.Join(want, "") {
		t.Errorf("n=3 stream got %q", full.seen)
	}
	if len(gone.seen) != 2 {
		t.Errorf("a stream whose second write failed got %d writes", len(gone.seen))
	}
	for {
		cs.mu.Lock()
		left := len(cs.clocks)
		cs.mu.Unlock()
		if left == 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatal("the clock with no stream is still kept")
		case <-time.After(time.Millisecond):
		}
	}
	taken.mu.Lock()
	defer taken.mu.Unlock()
	if len(taken.seen) != n {
		t.Errorf("a stream taken off got %d more writes", len(taken.seen)-n)
	}
}
