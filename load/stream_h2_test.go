package load_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// truthServer is an h2c server whose /events?n=N sends N Server-Sent
// Events 10ms apart on every stream, and keeps the truth: the gaps
// between each stream's writes, timed just before each write (net/http's
// HTTP/2 Flush returns once the frame is written).
type truthServer struct {
	*httptest.Server
	mu  sync.Mutex
	gap *hdrhistogram.Histogram
}

func newTruthServer(t *testing.T) *truthServer {
	ts := &truthServer{gap: result.NewHistogram()}
	ts.Server = httptest.NewUnstartedServer(http.HandlerFunc(ts.events))
	ts.Config.Protocols = new(http.Protocols)
	ts.Config.Protocols.SetHTTP1(true)
	ts.Config.Protocols.SetUnencryptedHTTP2(true)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func (ts *truthServer) events(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var last time.Time
	for i := 1; i <= n; i++ {
		if i > 1 {
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
		}
		now := time.Now()
		if i > 1 {
			ts.mu.Lock()
			ts.gap.RecordValue(now.Sub(last).Microseconds())
			ts.mu.Unlock()
		}
		last = now
		fmt.Fprintf(w, "id: %d\ndata: tick %d\n\n", i, i)
		if rc.Flush() != nil {
			return
		}
	}
}

// TestSSEOverH2MatchesTruth: 100 streams of Server-Sent Events over 4 h2c
// connections (25 streams each), an event every 10ms: gust counts every
// event, its mean gap is the server's within 1ms, and its gaps'
// percentiles are the server's within a few milliseconds (loose bounds:
// the machine running the test may be busy).
func TestSSEOverH2MatchesTruth(t *testing.T) {
	const conns, perConn, events = 4, 25, 20
	srv := newTruthServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := load.Run(ctx, load.Config{URL: srv.URL + "/events?n=" + strconv.Itoa(events), HTTP2: true, SSE: true,
		Connections: conns, Streams: perConn, Loops: 1, Requests: conns * perConn, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stream
	if s == nil || !s.SSE || s.Streams != conns*perConn || s.Events != conns*perConn*events {
		t.Fatalf("stream section %+v, want %d SSE streams of %d events", s, conns*perConn, events)
	}
	srv.mu.Lock()
	truth := srv.gap
	srv.mu.Unlock()
	if truth.TotalCount() != conns*perConn*(events-1) {
		t.Fatalf("the server timed %d gaps, want %d", truth.TotalCount(), conns*perConn*(events-1))
	}
	// A late read shortens the next gap as much as it lengthens its own,
	// so the means differ by how much later the last event of a stream
	// was read than its first, over its 19 gaps: held within 3 ms (57 ms
	// of skew, which a busy CI machine reaches); the percentiles move with
	// the machine's load, and are held loosely.
	if got, want := s.Gap.Mean(), truth.Mean(); got-want > 3_000 || want-got > 3_000 {
		t.Errorf("mean gap: gust %.0fus, the server %.0fus", got, want)
	}
	for _, q := range []struct {
		q   float64
		tol int64 // us
	}{{50, 3_000}, {90, 10_000}} {
		got, want := s.Gap.ValueAtQuantile(q.q), truth.ValueAtQuantile(q.q)
		t.Logf("gap p%v: gust %dus, the server %dus", q.q, got, want)
		if d := got - want; d > q.tol || d < -q.tol {
			t.Errorf("gap p%v: gust %dus, the server %dus", q.q, got, want)
		}
	}
	if m := s.Gap.Mean(); m < 9_000 {
		t.Errorf("mean gap %.0fus, under the server's 10ms", m)
	}
}
