package load

import (
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/load/flow"
)

// flowSchedule runs user journeys (Config.Flow) with its loop's share of
// the users (flow_users.go), which take turns on the loop's connections:
// a user holds one from sending a step until its answer, thinks in the
// loop's heap of users, then takes an idle connection or queues for the
// next one freed, first come first served. Its cookies and captures stay
// with it, whichever connection carries it. Closed: a user begins its
// next iteration as soon as one ends. Open (IterationRate): the loop's
// share of the rate begins iterations on the users free at each start,
// the others wait.
type flowSchedule struct {
	run   *FlowRun
	clock func() int64
	stats *flow.Stats
	// recorded: stats were reset when measurement began; started: the
	// users were set going.
	recorded, started bool
	users             []flowUser
	timers            userTimers  // the users thinking
	queue             ring[int32] // users with a request due and no connection, oldest first
	idle              idleQueue   // connections no user holds
	b                 flow.Builder
	req               request // the request being sent, viewing b
	// The open model: the loop's interval between iteration starts, the
	// next start, the users free to take one, starts that found none.
	interval int64
	next     int64
	free     []int32
	dropped  int64
	// rested, with stages: the users the stages leave without an
	// iteration, keyed on their number, so that the stages wake the
	// lowest first and a wake costs O(log n) however many rest.
	rested userTimers
	// active counts this loop's users within an iteration.
	active int
	digits []byte
	// passed and failed take the checks' counts for Config.Live
	// (flow_live.go).
	passed, failed []int64
}

func (e *engine) newFlowSchedule(loop int) *flowSchedule {
	s := newFlowUsersSchedule(e.cfg.Flow, loop, e.cfg.Loops, e.cfg.Connections, e.cfg.Flow.Flow.NewStats())
	s.clock = e.now
	return s
}

// newFlowUsersSchedule returns the schedule of the loop-th of loops
// sharing conns connections, counting in stats: its users, their heap
// and queue, and its pool of idle connections.
func newFlowUsersSchedule(run *FlowRun, loop, loops, conns int, stats *flow.Stats) *flowSchedule {
	s := &flowSchedule{run: run, stats: stats, users: newFlowUsers(run, loop, loops)}
	s.queue = newRing[int32](len(s.users))
	s.timers = make(userTimers, 0, len(s.users))
	s.idle = newIdleQueue((conns + loops - 1) / loops)
	if r := run.IterationRate; r > 0 {
		s.interval = int64(float64(loops) * 1e9 / r)
		s.next = int64(float64(loop) * 1e9 / r) // the loops' starts interleaved
	}
	return s
}

// place gives c the answer its session keeps for the users it carries.
func (s *flowSchedule) place(c *conn, j int) {
	if h1, ok := c.ses.(*h1session); ok {
		h1.keep = &flowResp{clock: s.clock}
	}
}

func (s *flowSchedule) begin(c *conn, start int64) {}

// measure resets the counts once measurement begins, and starts the open
// model's clock then: when this loop sees it begin, which may be a wait
// (up to maxWait) after another loop began it, so that the loop's first
// starts are not all due at once.
func (s *flowSchedule) measure(l *loop, now int64) {
	if !l.recording || s.recorded {
		return
	}
	s.recorded = true
	s.stats.Reset()
	s.dropped = 0
	if s.interval > 0 {
		s.next += max(l.e.measureStart.Load(), now)
	}
}

// fill runs the user c carries, or the first queued: its request goes
// out, or, its answer in, it moves on (advance) and c serves the next
// user waiting. A connection no user waits for is idle.
func (s *flowSchedule) fill(l *loop, c *conn, now int64) {
	if c.inflight() > 0 {
		return // a user waits for each answer
	}
	s.measure(l, now)
	for {
		fu := c.user
		if fu == nil {
			if s.queue.len() == 0 {
				s.idle.park(c)
				return
			}
			fu = &s.users[s.queue.pop()]
			c.user = fu
		}
		if fu.pending {
			s.send(l, fu, c, now)
			return
		}
		s.settle(fu, respOf(c), now)
		if s.advance(l, fu, c, now) {
			return // its next request went out on c
		}
		c.user = nil
	}
}

// advance moves fu on from its answer or its wake: its next request goes
// out on c (nil: it takes an idle connection, or queues for one; with
// users queued it queues behind them), or it thinks, or its iteration
// ends and the next begins. It reports whether fu sent on c.
func (s *flowSchedule) advance(l *loop, fu *flowUser, c *conn, now int64) bool {
	for {
		switch what, at := fu.u.Next(now, s.counting(fu)); what {
		case flow.Send:
			fu.pending = true
			if c != nil && s.queue.len() == 0 {
				s.send(l, fu, c, now)
				return true
			}
			if c == nil {
				if d := s.idleConn(); d != nil {
					d.user = fu
					l.refill(d, now)
					return false
				}
			}
			s.queue.push(fu.id)
			return false
		case flow.Wait:
			s.timers.push(at, fu.id)
			return false
		case flow.Ended:
			if !s.again(l, fu, now) {
				return false
			}
		}
	}
}

// again ends fu's iteration and begins its next, and reports whether it
// did: in the open model, or resting under stages, fu joins the free
// users instead, and once the run's iterations are all begun it stays.
func (s *flowSchedule) again(l *loop, fu *flowUser, now int64) bool {
	if fu.inIter {
		fu.inIter = false
		s.active--
	}
	if s.interval > 0 || s.resting(l, fu.u, now) {
		s.rest(fu)
		return false
	}
	if !s.claim(l) {
		return false
	}
	fu.warm = !l.recording
	fu.u.Begin(now)
	fu.inIter = true
	s.active++
	return true
}

// rest puts fu with the free users (the open model) or the resting ones
// (stages), once.
func (s *flowSchedule) rest(fu *flowUser) {
	if fu.free {
		return
	}
	fu.free = true
	if s.interval > 0 {
		s.free = append(s.free, fu.id)
		return
	}
	s.rested.push(int64(fu.u.VU()), fu.id)
}

// idleConn takes the connection idle the longest that can carry a
// request now; nil when none can.
func (s *flowSchedule) idleConn() *conn {
	for s.idle.len() > 0 {
		c := s.idle.take()
		if c.user == nil && c.state == stActive && c.inflight() == 0 && c.wleft == 0 && !c.ses.closing() {
			return c
		}
	}
	return nil
}

// send sends fu's due request on c.
func (s *flowSchedule) send(l *loop, fu *flowUser, c *conn, now int64) {
	fu.pending = false
	q := fu.u.Request(&s.b)
	s.build(l, q)
	fu.sent = now
	r := respOf(c)
	r.done, r.status, r.limit = false, 0, 0
	if s.run.Flow.ReadsBody(q.Step) {
		r.limit = s.run.BodyLimit
	}
	l.send(c, &s.req, now, requestMeta(q.Step, q.Method == "HEAD"), now)
}

// settle gives a user whose request went out what became of it, from
// r, its connection's answer: the answer, which may have come before a
// reconnect (Connection: close; its latency is to when it completed), or
// a failure, which fails the step's checks and ends the iteration.
func (s *flowSchedule) settle(fu *flowUser, r *flowResp, now int64) {
	u := fu.u
	if !u.Waiting() || fu.pending {
		return
	}
	st := s.counting(fu)
	resp := flow.Response{Latency: now - fu.sent}
	if r.done {
		resp.Status, resp.Head, resp.Body, resp.Latency = r.status, r.head, r.body, r.at-fu.sent
	}
	r.done, r.status = false, 0
	u.Done(&resp, now, st)
	// A failed request ends the iteration now, not when a connection
	// next comes free, which may never happen.
	if resp.Status == 0 && u.End(now, st) && fu.inIter {
		fu.inIter = false
		s.active--
	}
}

// resting reports whether the stages leave u without an iteration at now.
func (s *flowSchedule) resting(l *loop, u *flow.User, now int64) bool {
	busy := s.run.busyAt(now - l.e.measureStart.Load())
	return busy >= 0 && u.VU() > busy
}

// wake, with stages, begins the iterations of resting users the stages
// want busy again, the lowest numbered first.
func (s *flowSchedule) wake(l *loop, now int64) {
	busy := s.run.busyAt(now - l.e.measureStart.Load())
	for {
		vu, ok := s.rested.peek()
		if !ok || vu > int64(busy) {
			return
		}
		fu := &s.users[s.rested.pop()]
		fu.free = false
		s.advance(l, fu, nil, now)
	}
}

// startCheck is how often a loop waiting for measurement to begin looks
// whether another loop began it.
const startCheck = int64(time.Millisecond)

// stageCheck is how often users resting under stages look again.
const stageCheck = int64(20 * time.Millisecond)

// counting returns the stats to count fu's steps in: nil before
// measurement, and for an iteration begun during the warmup.
func (s *flowSchedule) counting(fu *flowUser) *flow.Stats {
	if s.recorded && !fu.warm {
		return s.stats
	}
	return nil
}

// claim takes one iteration of the run's budget.
func (s *flowSchedule) claim(l *loop) bool {
	if !l.recording {
		return true // the warmup's iterations are not the run's
	}
	n := s.run.Iterations
	return n == 0 || s.run.begun.Add(1) <= n
}

// build fills the loop's request for q: its head built as HTTP/1.1
// writes it, viewing the builder's buffers.
func (s *flowSchedule) build(l *loop, q *flow.Request) {
	r := &s.req
	s.digits = http1.BuildHead(&r.head, &http1.Request{Method: q.Method, Target: view(q.Target),
		Host: view(l.e.target.req.head.Host), Header: q.Header, Body: q.Body, UserAgent: "gust"}, s.digits[:0])
	r.body, r.wire, r.kept = q.Body, nil, false
}

// dispatch sets the users going once the run may send (at once with a
// warmup, or when measurement begins), wakes the users whose think is
// over, gives queued users connections come idle, and begins the open
// model's iterations due and the iterations of users the stages want.
func (s *flowSchedule) dispatch(l *loop, now int64) {
	s.measure(l, now)
	if !s.started {
		if !l.recording && l.e.cfg.Warmup == 0 {
			return // users begin when measurement does
		}
		s.started = true
		for i := range s.users {
			s.advance(l, &s.users[i], nil, now)
		}
	}
	for {
		at, ok := s.timers.peek()
		if !ok || at > now {
			break
		}
		s.advance(l, &s.users[s.timers.pop()], nil, now)
	}
	for s.queue.len() > 0 {
		c := s.idleConn()
		if c == nil {
			break
		}
		c.user = &s.users[s.queue.pop()]
		l.refill(c, now)
	}
	if len(s.run.Stages) > 0 && s.recorded && len(s.rested) > 0 {
		s.wake(l, now)
		return
	}
	if s.interval == 0 || !s.recorded {
		return
	}
	for s.next <= now {
		if n := s.run.Iterations; n > 0 && s.run.begun.Load() >= n {
			return // every iteration begun: none is dropped
		}
		if len(s.free) == 0 {
			s.dropped++
			s.next += s.interval
			continue
		}
		if !s.claim(l) {
			return
		}
		fu := &s.users[s.free[len(s.free)-1]]
		s.free = s.free[:len(s.free)-1]
		l.recordLateness(now - s.next)
		fu.free, fu.inIter, fu.warm = false, true, false
		fu.u.Begin(s.next)
		s.active++
		s.next += s.interval
		s.advance(l, fu, nil, now)
	}
}

func (s *flowSchedule) nextDue(l *loop, now int64) int64 {
	at := s.scheduleDue(l, now)
	if t, ok := s.timers.peek(); ok && (at < 0 || t < at) {
		at = t
	}
	if s.queue.len() > 0 && s.idle.len() > 0 {
		at = now // a connection came idle for a user queued
	}
	return at
}

// scheduleDue is when the start of measurement, the stages or the open
// model's next iteration want the loop, or -1.
func (s *flowSchedule) scheduleDue(l *loop, now int64) int64 {
	if !l.recording && now >= int64(l.e.cfg.Warmup) {
		// Another loop may begin measuring any moment (when the last
		// connection is up): look soon, or this loop's users would
		// start up to maxWait after the others'.
		return now + startCheck
	}
	if len(s.run.Stages) > 0 && s.recorded && len(s.rested) > 0 {
		return now + stageCheck
	}
	if s.interval == 0 || !s.recorded {
		return -1
	}
	return s.next
}

// reconnectAt settles the request c's socket took with it, so that its
// user's iteration ends now, and lets the user go on at the loop's next
// turn on another connection; c reconnects at once.
func (s *flowSchedule) reconnectAt(c *conn, now int64) int64 {
	fu := c.user
	if fu == nil {
		return now
	}
	c.user = nil
	if fu.pending {
		s.queue.push(fu.id) // it never sent: its request waits for another connection
		return now
	}
	s.settle(fu, respOf(c), now)
	s.timers.push(now, fu.id)
	return now
}

// connectFailed uses up an iteration of a bounded run, so that it ends
// even when the target stays down, and counts the connect's error.
func (s *flowSchedule) connectFailed(l *loop, now int64) int {
	if l.recording {
		s.claim(l)
	}
	return 1
}

// exhausted reports that the run's iterations are all begun and none of
// this loop's users can still finish one: none is within one, or every
// connection that could carry them is backing off from a failed connect
// (the target went away). A connection closed is about to connect again
// (reopen asks this before it does), so it still counts.
func (s *flowSchedule) exhausted(l *loop) bool {
	n := s.run.Iterations
	if n == 0 || s.run.begun.Load() < n {
		return false
	}
	if s.active == 0 {
		return true
	}
	for _, c := range l.conns {
		if c.state != stBackoff {
			return false
		}
	}
	return true
}
