package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// Live is a run's measurements so far, cumulative from the start of
// measurement (warmup excluded, as in the Result), handed to Config.Live
// once a second and once more at the end.
//
// The counts are gathered from the loops' own per-second hand-over to the
// collector (timeline.go), so watching a run adds nothing per request.
type Live struct {
	// Elapsed is the measured time the counts cover: whole seconds while
	// the run goes on, the Result's Duration at the end.
	Elapsed time.Duration
	// Requests counts responses, as result.Result.Requests.
	Requests int64
	// Status counts responses by status code.
	Status map[int]int64
	// Errors counts failures by kind; every kind is present, most at 0.
	Errors map[result.ErrorKind]int64
	// Latency is the latency histogram of every counted response, in
	// microseconds (result.NewHistogram's): its total is Requests.
	Latency *hdrhistogram.Histogram
	// InFlight is the requests sent and not yet answered, and Connections
	// the connections established, both at the end of the last second.
	InFlight    int64
	Connections int64
	// TargetRate is the requests per second the schedule aims at now
	// (see engine.rateAt); 0 in the closed model.
	TargetRate float64
	// Flow, in a flow run (Config.Flow), is its steps' and checks'
	// measurements so far; nil otherwise.
	Flow *FlowLive
	// Final is set on the last call, made after the run with the
	// Result's own counts; InFlight and Connections are then 0.
	Final bool
}

// liveCounts is one loop's share of a Live for one second: the counts by
// status and error kind since its last hand-over, and its gauges at the
// hand-over. Loops make one once a second, and only when Config.Live is
// set; the collector hands it back to be reused.
type liveCounts struct {
	status      [maxStatus]int64
	errors      [result.NumErrorKinds]int64
	inflight    int64
	connections int64
	flow        *FlowLive // a flow run's, cumulative (flow_live.go)
}

// liveSent is what a loop has handed over so far, to take differences
// from its cumulative stats.
type liveSent struct {
	status [maxStatus]int64
	errors [result.NumErrorKinds]int64
}

// liveCounts returns the loop's counts since its last hand-over, or nil
// when nobody watches the run. It runs on the loop once a second.
func (l *loop) liveCounts() *liveCounts {
	lv := l.e.collector.live
	if lv == nil {
		return nil
	}
	if l.sent == nil {
		l.sent = new(liveSent)
	}
	var d *liveCounts
	select {
	case d = <-lv.free[l.id]:
	default:
		d = new(liveCounts)
	}
	for i, n := range l.stats.status {
		d.status[i] = n - l.sent.status[i]
	}
	l.sent.status = l.stats.status
	for i, n := range l.stats.errors {
		d.errors[i] = n - l.sent.errors[i]
	}
	l.sent.errors = l.stats.errors
	d.flow = l.flowLive(d.flow)
	d.inflight = int64(l.inflight)
	d.connections = 0
	for _, c := range l.conns {
		if c.state == stActive {
			d.connections++
		}
	}
	return d
}

// liveState is the collector's side: the loops' counts added up second by
// second into one cumulative Live.
type liveState struct {
	publish func(*Live)
	rateAt  func(elapsed time.Duration) float64
	free    []chan *liveCounts // per loop
	sum     Live
	flows   flowLives
}

func newLiveState(loops int, publish func(*Live), rateAt func(time.Duration) float64) *liveState {
	s := &liveState{publish: publish, rateAt: rateAt, free: make([]chan *liveCounts, loops)}
	for i := range s.free {
		s.free[i] = make(chan *liveCounts, 2)
	}
	s.sum = Live{Status: make(map[int]int64), Errors: make(map[result.ErrorKind]int64), Latency: result.NewHistogram()}
	for k := range result.NumErrorKinds {
		s.sum.Errors[k] = 0
	}
	return s
}

// add folds one loop's counts into the second they belong to, and hands
// them back to the loop.
func (s *liveState) add(agg *secondAgg, loop int, d *liveCounts) {
	if agg.live == nil {
		agg.live = new(liveCounts)
	}
	for i, n := range d.status {
		agg.live.status[i] += n
	}
	for i, n := range d.errors {
		agg.live.errors[i] += n
	}
	if d.flow != nil {
		s.flows.take(loop, len(s.free), d.flow)
	}
	agg.live.inflight += d.inflight
	agg.live.connections += d.connections
	select {
	case s.free[loop] <- d:
	default:
	}
}

// second adds a finished second of the timeline and publishes the sum.
func (s *liveState) second(agg *secondAgg) {
	sum := &s.sum
	sum.Elapsed = time.Duration(agg.Second.Second+1) * time.Second
	sum.Requests += agg.Requests
	sum.Latency.Merge(agg.hist)
	if d := agg.live; d != nil {
		for code, n := range d.status {
			if n != 0 {
				sum.Status[code] += n
			}
		}
		for k, n := range d.errors {
			sum.Errors[result.ErrorKind(k)] += n
		}
		sum.InFlight, sum.Connections = d.inflight, d.connections
	}
	sum.TargetRate = s.rateAt(sum.Elapsed)
	sum.Flow = s.flows.total()
	s.publish(sum)
}

// final publishes the Result's counts as the last Live.
func (s *liveState) final(r *result.Result) {
	last := Live{
		Elapsed:    r.Duration,
		Requests:   r.Requests,
		Status:     r.Status,
		Errors:     make(map[result.ErrorKind]int64, result.NumErrorKinds),
		Latency:    r.Latency,
		TargetRate: s.rateAt(r.Duration),
		Flow:       flowLiveOf(r),
		Final:      true,
	}
	for k := range result.NumErrorKinds {
		last.Errors[k] = r.Errors[k]
	}
	s.publish(&last)
}

// rateAt is the target rate, in requests per second, at elapsed into
// measurement: this shard's share of Config.Rate for the open model's
// constant schedule, the requests the stages intend in that second, 0 for
// the closed model and recorded times (targetInSecond).
func (e *engine) rateAt(elapsed time.Duration) float64 {
	return e.targetInSecond(int(elapsed / time.Second))
}
