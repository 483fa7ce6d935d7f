package load

// recordedSchedule sends the requests of a Source (gust replay's log) at
// the times the feeder stamped on them: their recorded times scaled by
// Speed, a flat Rate, or none (as fast as the connections allow).
type recordedSchedule struct{}

// With a Source, a loop takes requests in order from the batch it holds
// and gives each to a connection that can send: the one whose response
// just came in, or the longest idle one when the next request comes due.
// Each connection copies what it takes into its own write buffer, so a
// batch goes back to the feeder as soon as its last request is taken.

// peek returns the loop's next request without taking it, fetching a
// new batch when the current one is used up; nil when none is at hand.
func (l *loop) peek() *batchReq {
	if b := l.cur; b != nil {
		if b.next < len(b.reqs) {
			return &b.reqs[b.next]
		}
		l.cur = nil
		l.feeder.recycle(b)
	}
	if !l.takeBatch() {
		return nil
	}
	return &l.cur.reqs[0]
}

// takeBatch takes a filled batch if one is waiting. If none is, it marks
// the loop hungry so the feeder wakes it when one comes.
func (l *loop) takeBatch() bool {
	f := l.feeder
	select {
	case l.cur = <-f.full:
		return true
	default:
	}
	if f.done.Load() {
		return false // every batch was sent before done was set, and none is left
	}
	l.hungry.Store(true)
	// Look again: the feeder may have sent before it saw the flag.
	select {
	case l.cur = <-f.full:
		l.hungry.Store(false)
		return true
	default:
		return false
	}
}

// exhausted reports whether the Source has nothing more for this loop.
func (recordedSchedule) exhausted(l *loop) bool {
	done := l.feeder.done.Load() // before peek: a batch sent before done is seen
	return done && l.peek() == nil
}

// due reports whether r may be sent now.
func (l *loop) due(r *batchReq, now int64) bool {
	return !l.timed || r.at <= now
}

// fill gives c the requests that are due, up to its room; a connection
// that could take more waits in the idle queue.
func (recordedSchedule) fill(l *loop, c *conn, now int64) {
	for c.ses.room() > 0 {
		r := l.peek()
		if r == nil || !l.due(r, now) || !l.mayStart() {
			break
		}
		start := now
		if l.timed {
			start = r.at
			l.recordLateness(now - r.at)
		}
		l.cur.take(&l.req)
		l.send(c, &l.req, start, r.meta, now)
		l.cur.next++
	}
	if c.ses.room() > 0 {
		l.park(c)
	}
}

// dispatch gives due requests to idle connections, oldest idle first.
func (recordedSchedule) dispatch(l *loop, now int64) {
	for l.idleN > 0 && l.e.budgetLeft() {
		r := l.peek()
		if r == nil || !l.due(r, now) {
			return
		}
		l.refill(l.popIdle(), now)
	}
}

// nextDue returns when the loop must next dispatch: the intended time of
// its next request if a connection is idle to take it, else -1.
func (recordedSchedule) nextDue(l *loop, now int64) int64 {
	if l.idleN == 0 {
		return -1
	}
	r := l.peek()
	switch {
	case r == nil:
		return -1 // the feeder wakes a hungry loop
	case !l.timed:
		return now
	}
	return r.at
}

// park queues c as idle, once.
func (l *loop) park(c *conn) {
	if c.idle {
		return
	}
	c.idle = true
	l.idleQ[(l.idleHead+l.idleN)%len(l.idleQ)] = c
	l.idleN++
}

func (l *loop) popIdle() *conn {
	c := l.idleQ[l.idleHead]
	l.idleQ[l.idleHead] = nil
	l.idleHead = (l.idleHead + 1) % len(l.idleQ)
	l.idleN--
	c.idle = false
	return c
}

// failDue takes the requests that are due, as errors of their endpoints,
// and returns how many it took: with intended times, every request due by
// now; as fast as possible, one per connection of the loop (what they
// would have sent next).
func (l *loop) failDue(now int64) int {
	n := 0
	for l.timed || n < len(l.conns) {
		r := l.peek()
		if r == nil || !l.due(r, now) || !l.mayStart() {
			break
		}
		if l.recording {
			l.eps.fail(r.meta)
		}
		l.cur.next++
		n++
	}
	return n
}

// connectFailed fails the requests that are due when no connection is
// left to carry them, so that a replay ends even when the target stays
// down.
func (recordedSchedule) connectFailed(l *loop, now int64) int {
	if l.live > 0 {
		return 1
	}
	return max(l.failDue(now), 1)
}

func (recordedSchedule) place(c *conn, j int)                 {}
func (recordedSchedule) reconnectAt(c *conn, now int64) int64 { return now }
func (recordedSchedule) begin(c *conn, start int64)           {}
