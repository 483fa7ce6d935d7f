package load

import "github.com/gust-http/gust/result"

// A schedule decides what a loop's connections send and when: as fast as
// responses come back (closedSchedule), on a constant schedule
// (rateSchedule), on a rate that changes in stages (stagesSchedule), or a Source's requests at their own times
// (recordedSchedule). The loop asks it at each turning point of a
// connection's life; a new load model is one more file implementing it.
type schedule interface {
	// fill gives c the requests due by now, each through l.send, up to the
	// session's room. A connection that could take more may be left
	// waiting (a timer, the idle queue).
	fill(l *loop, c *conn, now int64)
	// place prepares c, the j-th connection of the run (of every loop).
	place(c *conn, j int)
	// dispatch gives due requests to connections waiting for them; it
	// runs every turn of the loop.
	dispatch(l *loop, now int64)
	// nextDue returns when the loop must wake next for the schedule, or -1.
	nextDue(l *loop, now int64) int64
	// reconnectAt returns when c, closed, should connect again.
	reconnectAt(c *conn, now int64) int64
	// begin tells the schedule that measurement starts at start and
	// nothing was sent before it (no warmup).
	begin(c *conn, start int64)
	// connectFailed is told a connect failed, and returns how many
	// requests to count as failed for it.
	connectFailed(l *loop, now int64) int
	// exhausted reports that nothing more will ever be sent.
	exhausted(l *loop) bool
}

// newSchedule returns the schedule cfg asks for, for the loop-th loop.
func (e *engine) newSchedule(loop int) schedule {
	switch {
	case e.cfg.Flow != nil:
		return e.newFlowSchedule(loop)
	case e.feed != nil:
		return &recordedSchedule{feeder: e.feed, timed: e.feed.timed()}
	case e.cfg.WebSocket.Hold:
		return holdSchedule{every: int64(e.cfg.WebSocket.Ping)}
	case len(e.cfg.Stages) > 0:
		return e.newStagesSchedule(loop)
	case e.cfg.Rate > 0:
		return &rateSchedule{
			interval: int64(float64(e.cfg.Connections) * 1e9 / e.cfg.Rate),
			spacing:  1e9 / e.cfg.Rate,
		}
	}
	return closedSchedule{}
}

// mayStart reports whether another request may be sent: always during
// warmup, otherwise while the request budget lasts.
func (l *loop) mayStart() bool {
	if !l.recording {
		// Before measurement: send only if a warmup was asked for; without
		// one, connections wait until every one is up.
		return l.e.cfg.Warmup > 0
	}
	return l.e.claim()
}

// nextRequest returns the next request to send and its meta: the run's
// one request, or the loop's next pick from request data.
func (l *loop) nextRequest() (*request, uint32) {
	if l.picker != nil {
		return l.picker.next()
	}
	return &l.e.target.req, l.targetMeta()
}

// targetMeta is the meta of the run's one request: its HEAD flag.
func (l *loop) targetMeta() uint32 {
	if l.e.target.head {
		return metaHead
	}
	return 0
}

// targetConnectFailed is connectFailed for the schedules of the run's one
// request: the attempt used up a request, so that a run bounded by a
// request count ends even when the target stays down.
func targetConnectFailed(l *loop) int {
	if l.recording {
		l.e.claim()
	}
	return 1
}

// recordLateness counts how far behind its intended time a request went out.
func (l *loop) recordLateness(late int64) {
	if !l.recording {
		return
	}
	l.stats.lateness.RecordValue(usec(late))
	if late > int64(result.LateThreshold) {
		l.stats.late++
	}
}
