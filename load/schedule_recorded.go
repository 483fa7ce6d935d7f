package load

import "sync/atomic"

// recordedSchedule sends the requests of a Source (gust replay's log) at
// the times the feeder stamped on them: their recorded times scaled by
// Speed, a flat Rate, or none (as fast as the connections allow). It is
// one loop's, and holds the loop's side of the feed.
type recordedSchedule struct {
	feeder *feeder
	timed  bool   // requests have intended send times
	cur    *batch // the batch requests are taken from
	idle   idleQueue
	// starving: waiting for the feeder's next batch (set by the loop,
	// taken by the feeder, which then wakes the loop).
	starving atomic.Bool
}

// With a Source, a loop takes requests in order from the batch it holds
// and gives each to a connection that can send: the one whose response
// just came in, or the longest idle one when the next request comes due.
// Each connection copies what it takes into its own write buffer, so a
// batch goes back to the feeder as soon as its last request is taken.

// peek returns the loop's next request without taking it, fetching a
// new batch when the current one is used up; nil when none is at hand.
func (s *recordedSchedule) peek() *batchReq {
	if b := s.cur; b != nil {
		if b.next < len(b.reqs) {
			return &b.reqs[b.next]
		}
		s.cur = nil
		s.feeder.recycle(b)
	}
	if !s.takeBatch() {
		return nil
	}
	return &s.cur.reqs[0]
}

// takeBatch takes a filled batch if one is waiting. If none is, it marks
// the loop hungry so the feeder wakes it when one comes.
func (s *recordedSchedule) takeBatch() bool {
	f := s.feeder
	select {
	case s.cur = <-f.full:
		return true
	default:
	}
	if f.done.Load() {
		return false // every batch was sent before done was set, and none is left
	}
	s.starving.Store(true)
	// Look again: the feeder may have sent before it saw the flag.
	select {
	case s.cur = <-f.full:
		s.starving.Store(false)
		return true
	default:
		return false
	}
}

// exhausted reports whether the Source has nothing more for this loop.
func (s *recordedSchedule) exhausted(l *loop) bool {
	done := s.feeder.done.Load() // before peek: a batch sent before done is seen
	return done && s.peek() == nil
}

// due reports whether r may be sent now.
func (s *recordedSchedule) due(r *batchReq, now int64) bool {
	return !s.timed || r.at <= now
}

// hungry reports, once, that l's recorded schedule waits for a batch:
// the feeder then wakes l.
func (l *loop) hungry() bool {
	s, ok := l.sched.(*recordedSchedule)
	return ok && s.starving.Load() && s.starving.Swap(false)
}

// fill gives c the requests that are due, up to its room; a connection
// that could take more waits in the idle queue.
func (s *recordedSchedule) fill(l *loop, c *conn, now int64) {
	for c.ses.room() > 0 {
		r := s.peek()
		if r == nil || !s.due(r, now) || !l.mayStart() {
			break
		}
		start := now
		if s.timed {
			start = r.at
			l.recordLateness(now - r.at)
		}
		s.cur.take(&l.req)
		l.send(c, &l.req, start, r.meta, now)
		s.cur.next++
	}
	if c.ses.room() > 0 {
		s.idle.park(c)
	}
}

// dispatch gives due requests to idle connections, oldest idle first.
func (s *recordedSchedule) dispatch(l *loop, now int64) {
	for s.idle.len() > 0 && l.e.budgetLeft() {
		r := s.peek()
		if r == nil || !s.due(r, now) {
			return
		}
		l.refill(s.idle.take(), now)
	}
}

// nextDue returns when the loop must next dispatch: the intended time of
// its next request if a connection is idle to take it, else -1.
func (s *recordedSchedule) nextDue(l *loop, now int64) int64 {
	if s.idle.len() == 0 {
		return -1
	}
	r := s.peek()
	switch {
	case r == nil:
		return -1 // the feeder wakes a hungry loop
	case !s.timed:
		return now
	}
	return r.at
}

// failDue takes the requests that are due, as errors of their endpoints,
// and returns how many it took: with intended times, every request due by
// now; as fast as possible, one per connection of the loop (what they
// would have sent next).
func (s *recordedSchedule) failDue(l *loop, now int64) int {
	n := 0
	for s.timed || n < len(l.conns) {
		r := s.peek()
		if r == nil || !s.due(r, now) || !l.mayStart() {
			break
		}
		if l.recording {
			l.eps.fail(r.meta)
		}
		s.cur.next++
		n++
	}
	return n
}

// connectFailed fails the requests that are due when no connection is
// left to carry them, so that a replay ends even when the target stays
// down.
func (s *recordedSchedule) connectFailed(l *loop, now int64) int {
	if l.live > 0 {
		return 1
	}
	return max(s.failDue(l, now), 1)
}

func (*recordedSchedule) place(c *conn, j int)                 {}
func (*recordedSchedule) reconnectAt(c *conn, now int64) int64 { return now }
func (*recordedSchedule) begin(c *conn, start int64)           {}
