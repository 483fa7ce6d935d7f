package load

import (
	"bufio"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// liveSeen is a copy of one Live call.
type liveSeen struct {
	Live
	statusSum, latencyCount, errorSum int64
	kinds                             int
}

// watch returns a Live callback that keeps a copy of every call.
func watch(seen *[]liveSeen) func(*Live) {
	return func(l *Live) {
		s := liveSeen{Live: *l, latencyCount: l.Latency.TotalCount(), kinds: len(l.Errors)}
		s.Status = maps.Clone(l.Status)
		s.Errors = maps.Clone(l.Errors)
		s.Latency = nil // only valid during the call
		for _, n := range l.Status {
			s.statusSum += n
		}
		for _, n := range l.Errors {
			s.errorSum += n
		}
		*seen = append(*seen, s)
	}
}

// TestLiveCountsWhatTheResultCounts runs an open-model run with a warmup
// against a server answering one request in ten with 503, and checks
// every Live call against itself and the last against the Result.
func TestLiveCountsWhatTheResultCounts(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%10 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Write([]byte("Hello, Go!"))
	}))
	t.Cleanup(srv.Close)
	var seen []liveSeen
	res := run(t, Config{URL: srv.URL, Connections: 4, Loops: 2, Rate: 300, Warmup: 500 * time.Millisecond,
		Duration: 2500 * time.Millisecond, Live: watch(&seen)})

	if len(seen) < 3 {
		t.Fatalf("%d Live calls, want one a second and a final one", len(seen))
	}
	last := seen[len(seen)-1]
	var prev int64
	for i, s := range seen {
		if s.Final != (i == len(seen)-1) {
			t.Errorf("call %d: Final %v, want only the last", i, s.Final)
		}
		if s.latencyCount != s.Requests || s.statusSum != s.Requests {
			t.Errorf("call %d: %d requests, %d in the histogram, %d by status: want all equal", i, s.Requests, s.latencyCount, s.statusSum)
		}
		if s.kinds != int(result.NumErrorKinds) || s.errorSum != 0 {
			t.Errorf("call %d: errors %v, want every kind at 0", i, s.Errors)
		}
		if s.Requests < prev {
			t.Errorf("call %d: requests went from %d down to %d", i, prev, s.Requests)
		}
		prev = s.Requests
		if s.TargetRate != 300 {
			t.Errorf("call %d: target rate %g, want 300", i, s.TargetRate)
		}
		if !s.Final {
			if s.Elapsed != time.Duration(i+1)*time.Second {
				t.Errorf("call %d: elapsed %s, want %ds", i, s.Elapsed, i+1)
			}
			if s.Connections != 4 || s.InFlight < 0 || s.InFlight > 4 {
				t.Errorf("call %d: %d connections, %d in flight; want 4 and at most 4", i, s.Connections, s.InFlight)
			}
			// Warmup excluded: at most 300/s so far, not more (a second
			// that catches up after a stall may hold more than 300, the
			// running total never: the schedule sends nothing early; a
			// counted warm-up would add 150).
			if want := int64(300*(i+1) + 10); s.Requests > want {
				t.Errorf("call %d: %d requests after %d s, want at most %d (warmup not counted)", i, s.Requests, i+1, want)
			}
		}
	}
	if last.Requests != res.Requests || !maps.Equal(last.Status, res.Status) || last.Elapsed != res.Duration {
		t.Errorf("final Live: %d requests %v in %s; Result: %d %v in %s", last.Requests, last.Status, last.Elapsed, res.Requests, res.Status, res.Duration)
	}
	if last.Status[503] == 0 {
		t.Errorf("status %v, want some 503", last.Status)
	}
	if last.InFlight != 0 || last.Connections != 0 {
		t.Errorf("final Live: %d in flight, %d connections; want 0 after the run", last.InFlight, last.Connections)
	}
}

// TestLiveCountsErrorsByKind: a server that closes every connection
// without an answer shows its errors in the Live calls as in the Result.
func TestLiveCountsErrorsByKind(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			c.(*net.TCPConn).SetLinger(0)
			return false
		})
	})
	var seen []liveSeen
	res := run(t, Config{URL: srv.url(), Connections: 2, Duration: 1500 * time.Millisecond, Timeout: 200 * time.Millisecond, Live: watch(&seen)})
	if len(seen) < 2 || seen[0].errorSum == 0 {
		t.Fatalf("Live calls %+v, want the first second's errors", seen)
	}
	last := seen[len(seen)-1]
	for k, n := range res.Errors {
		if last.Errors[k] != n {
			t.Errorf("final Live errors %v, Result's %v", last.Errors, res.Errors)
			break
		}
	}
	if seen[0].errorSum > last.errorSum {
		t.Errorf("errors went down: %d then %d", seen[0].errorSum, last.errorSum)
	}
}
