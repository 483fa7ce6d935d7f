//go:build linux

package load

import (
	"bufio"
	"context"
	"math"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// TestStagesScheduleIntendsExactCounts walks the loops' schedules without
// a network: every second gets exactly the requests the curve intends,
// the loops' shares interleave, and nothing is due before the start.
func TestStagesScheduleIntendsExactCounts(t *testing.T) {
	stages := []Stage{{2 * time.Second, 2000}, {2 * time.Second, 2000}}
	e, err := newEngine(Config{URL: "http://127.0.0.1:1/", Stages: stages, Connections: 4, Loops: 2})
	if err != nil {
		t.Fatal(err)
	}
	const start = int64(5 * time.Second)
	perSecond := make([]int, 4)
	var times [2][]int64
	for i := range times {
		s := e.newStagesSchedule(i)
		if s.due != never {
			t.Fatalf("loop %d has a request due at %d before the start", i, s.due)
		}
		s.begin(nil, start)
		for ; s.due != never; s.advance() {
			times[i] = append(times[i], s.due)
			perSecond[(s.due-start)/int64(time.Second)]++
		}
	}
	if want := []int{500, 1500, 2000, 2000}; !equalInts(perSecond, want) {
		t.Fatalf("requests intended per second %v, want %v", perSecond, want)
	}
	if len(times[0]) != 3000 || len(times[1]) != 3000 {
		t.Fatalf("loops intend %d and %d requests, want 3000 each", len(times[0]), len(times[1]))
	}
	for k := 1; k < 3000; k++ {
		// Loop 0 takes the even requests, loop 1 the odd ones.
		if !(times[0][k-1] <= times[1][k-1] && times[1][k-1] <= times[0][k]) {
			t.Fatalf("request %d of loop 1 at %d is not between loop 0's %d and %d", k-1, times[1][k-1], times[0][k-1], times[0][k])
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestStagesFollowTheirRates runs stages over loopback, against the
// canned server, net/http's h2c server and its TLS server: each second's
// target in the timeline is the curve's exact count, the requests sent
// (the lateness histogram counts each once) are the curve's total within
// 1% (and the generator's lag), and the responses of every second are within 1% of its target. The
// last second's count adds the responses still in flight when the run
// ended: they were sent in it. A request the generator sent late (a busy
// machine stalls it) may complete in a later second than intended, so
// each one counted late widens the bound by one; on a quiet machine none
// is, and the bound is 1%. The intended sends themselves are exact:
// TestStagesScheduleIntendsExactCounts.
func TestStagesFollowTheirRates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 8 s")
	}
	h2 := newH2CServer(t, nil, nil)
	tlsSrv := tlsServer(t, 0)
	tests := []struct {
		name    string
		cfg     Config
		stages  string
		want    []float64
		netHTTP bool // against net/http's server, which -race slows below the rate
	}{
		{"HTTP/1.1, three stages", Config{URL: "http://" + cannedServer(t) + "/"}, "1s:2000,2s:4000,1s:4000", []float64{1000, 2500, 3500, 4000}, false},
		{"HTTP/2 with two streams a connection", Config{URL: h2.url, HTTP2: true, Streams: 2}, "1s:1000,1s:1000", []float64{500, 1000}, true},
		{"HTTPS", Config{URL: tlsSrv.URL + "/", TLS: trusting(tlsSrv)}, "1s:1000,1s:1000", []float64{500, 1000}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.netHTTP && raceEnabled {
				t.Skip("under -race net/http's h2c and TLS servers answer slower than the rate: judged without -race")
			}
			stages, err := ParseStages(tt.stages)
			if err != nil {
				t.Fatal(err)
			}
			cfg := tt.cfg
			cfg.Stages, cfg.Connections, cfg.MaxConnections, cfg.Loops = stages, 8, 64, 2
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.ErrorCount() != 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			if len(res.Timeline) < len(tt.want) {
				t.Fatalf("timeline of %d seconds, want %d", len(res.Timeline), len(tt.want))
			}
			total := 0.0
			for _, want := range tt.want {
				total += want
			}
			// A generator running behind (under -race, on a busy machine)
			// ends with the requests of its lag unsent: as many as the
			// last second's rate sends in the largest lateness.
			sent := res.Lateness.TotalCount()
			lag := tt.want[len(tt.want)-1] * float64(res.Lateness.Max()) / 1e6
			if math.Abs(float64(sent)-total) > total/100+lag {
				t.Errorf("%d requests sent, want %g within 1%% (%d late, by %d us at most)", sent, total, res.Late, res.Lateness.Max())
			}
			for i, want := range tt.want {
				s := res.Timeline[i]
				if math.Abs(s.TargetRate-want) > 1e-6 {
					t.Errorf("second %d: target %g, want %g", i, s.TargetRate, want)
				}
				got := s.Requests
				if i == len(tt.want)-1 {
					got += sent - res.Requests // in flight at the end
				}
				if d := math.Abs(float64(got) - want); d > want/100+float64(res.Late) {
					t.Errorf("second %d: %d responses, want %g within 1%% (%d late in the run)", i, got, want, res.Late)
				}
			}
			if res.Stages != tt.stages {
				t.Errorf("the result's stages %q, want %q", res.Stages, tt.stages)
			}
		})
	}
}

// slowServer answers every request after delay, one at a time per
// connection, and counts its connections.
func slowServer(t *testing.T, delay time.Duration) *rawServer {
	return newRawServer(t, func(c net.Conn) {
		serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
			time.Sleep(delay)
			w.WriteString(helloResponse)
			return w.Flush() == nil
		})
	})
}

// TestMaxConnectionsGrowsThePool runs 300 req/s against a server that
// takes 20 ms a response, which needs six connections: two cannot keep
// up and send late, a pool allowed to grow opens what it needs and no
// more than MaxConnections.
func TestMaxConnectionsGrowsThePool(t *testing.T) {
	stages := []Stage{{0, 300}, {time.Second, 300}}
	run := func(maxConns int) *result.Result {
		srv := slowServer(t, 20*time.Millisecond)
		res, err := Run(context.Background(), Config{URL: srv.url(), Stages: stages, Connections: 2, Loops: 1, MaxConnections: maxConns})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	fixed := run(0)
	if fixed.Connects != 2 || fixed.Requests > 110 {
		t.Errorf("a pool of 2 made %d connects and got %d responses, want 2 and at most 2 x 50", fixed.Connects, fixed.Requests)
	}
	grown := run(30)
	if grown.Connects <= 6 || grown.Connects > 30 {
		t.Errorf("the pool grew to %d connections, want more than 6 and at most 30", grown.Connects)
	}
	if grown.Requests < 270-behind(grown, 300) || grown.ErrorCount() != 0 {
		t.Errorf("the grown pool got %d responses and errors %v, want about 300 and none", grown.Requests, grown.Errors)
	}
	lateShare := func(r *result.Result) float64 { return float64(r.Late) / float64(r.Lateness.TotalCount()) }
	if lateShare(grown) > lateShare(fixed)/2 {
		t.Errorf("%d of %d late with the pool grown, %d of %d without: growing should keep most on time",
			grown.Late, grown.Lateness.TotalCount(), fixed.Late, fixed.Lateness.TotalCount())
	}
}

// TestRampUpSpreadsTheConnects opens 40 connections over half a second
// and measures from the start: the accepts spread over the ramp, and the
// timeline's first second has responses.
func TestRampUpSpreadsTheConnects(t *testing.T) {
	var accepted []time.Time
	accepts := make(chan time.Time, 64)
	srv := newRawServer(t, func(c net.Conn) {
		accepts <- time.Now()
		answerAll(c)
	})
	const conns, ramp = 40, 500 * time.Millisecond
	res, err := Run(context.Background(), Config{URL: srv.url(), Connections: conns, RampUp: ramp, Loops: 2, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for len(accepts) > 0 {
		accepted = append(accepted, <-accepts)
	}
	// The first is Run's start-up probe.
	if len(accepted) != conns+1 || res.Connects != conns {
		t.Fatalf("%d accepted, %d connects counted; want the probe and %d", len(accepted), res.Connects, conns)
	}
	accepted = accepted[1:]
	first, last := accepted[0], accepted[0]
	for _, at := range accepted {
		first, last = minTime(first, at), maxTime(last, at)
	}
	want := ramp - 2*ramp/conns // each of two loops opens its 20 a 25 ms apart
	if got := last.Sub(first); got < want*4/5 || got > 3*want {
		t.Errorf("connects spread over %v, want about %v", got, want)
	}
	if len(res.Timeline) == 0 || res.Timeline[0].Requests == 0 || res.Duration < 900*time.Millisecond {
		t.Errorf("measured %v from the start, timeline %v: the ramp should be measured", res.Duration, res.Timeline)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestRampUpPacesFirstOpeningsConnectRateTheRest checks how the two paces
// share a loop: a connection never connected keeps the ramp-up's, one
// that was keeps ConnectRate's.
func TestRampUpPacesFirstOpeningsConnectRateTheRest(t *testing.T) {
	l := &loop{pace: newConnectPace(10, 1), ramp: newRampUp(100, time.Second, 1)}
	c := &conn{}
	if p := l.paceFor(c); p != &l.ramp || p.every != int64(10*time.Millisecond) {
		t.Fatalf("a first opening keeps a pace every %d ns, want the ramp-up's 10 ms", p.every)
	}
	c.everConnected = true
	if p := l.paceFor(c); p != &l.pace || p.every != int64(100*time.Millisecond) {
		t.Fatalf("a reconnect keeps a pace every %d ns, want ConnectRate's 100 ms", p.every)
	}
	l.ramp = newRampUp(100, 0, 1)
	c.everConnected = false
	if p := l.paceFor(c); p != &l.pace {
		t.Fatal("without a ramp-up, first openings should keep ConnectRate's pace")
	}
}

// TestStagesAreSharedLikeARate checks that each shard runs its share of
// every stage's target and of the pool, the shares adding up to the whole.
func TestStagesAreSharedLikeARate(t *testing.T) {
	stages := []Stage{{time.Second, 1001}, {time.Second, 2.5}}
	var sum [2]float64
	var conns, maxConns int
	for i := range 4 {
		e, err := newEngine(Config{URL: "http://127.0.0.1:1/", Stages: stages, Connections: 8, MaxConnections: 42, Shard: result.Shard{Index: i, Count: 4}})
		if err != nil {
			t.Fatal(err)
		}
		for k, st := range e.cfg.Stages {
			sum[k] += st.Target
		}
		conns += e.cfg.Connections
		maxConns += e.cfg.MaxConnections
		if e.stages != "1s:1001,1s:2.5" {
			t.Errorf("shard %d reports the stages %q, want the whole run's", i, e.stages)
		}
	}
	if sum != [2]float64{1001, 2.5} || conns != 8 || maxConns != 42 {
		t.Fatalf("shares add up to targets %v, %d connections, %d at most; want 1001 and 2.5, 8, 42", sum, conns, maxConns)
	}
}
