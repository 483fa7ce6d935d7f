package load

import (
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/load/flow"
)

// flowSchedule runs user journeys (Config.Flow): each connection is a
// user, its next request the flow's next step for it, sent when the
// answer to the last one is in and its think time is over (a timer on
// the loop's heap). Closed: a user begins its next iteration as soon as
// one ends. Open (IterationRate): the loop's share of the rate begins
// iterations on the users free at each start, the others wait.
type flowSchedule struct {
	run   *FlowRun
	clock func() int64
	stats *flow.Stats
	// recorded: stats were reset when measurement began.
	recorded bool
	// The open model: the loop's interval between iteration starts, the
	// next start, the users free to take one, starts that found none.
	interval int64
	next     int64
	free     []*conn
	dropped  int64
	// active counts this loop's users within an iteration.
	active int
	digits []byte
}

// flowUser is a user bound to its connection: its flow state, the
// response its session keeps for it, and when its request went out.
type flowUser struct {
	u    *flow.User
	resp flowResp
	sent int64
	req  request // the request being sent, viewing the user's buffers
	// inIter: within an iteration; free: in the open model's free list.
	inIter, free bool
	// warm: the iteration began during the warmup; it counts nothing.
	warm bool
}

// flowResp is the answer an HTTP/1.1 session keeps for its user: the
// head as received and the body up to a limit. A nil *flowResp keeps
// nothing.
type flowResp struct {
	head   []byte
	body   []byte
	limit  int // of the body kept for the step in flight
	status int
	done   bool
	at     int64        // when it completed
	clock  func() int64 // the run's clock
}

// onHead keeps a final response's head, forgetting the last answer.
func (r *flowResp) onHead(h []byte, status int) {
	r.head = append(r.head[:0], h...)
	r.body = r.body[:0]
	r.status, r.done = status, false
}

// onBody keeps the body's next bytes, up to the limit (0 while the step
// reads no body, so that a user holds only the bodies it reads).
func (r *flowResp) onBody(p []byte) {
	if room := r.limit - len(r.body); room > 0 {
		r.body = append(r.body, p[:min(len(p), room)]...)
	}
}

// onDone marks the response complete.
func (r *flowResp) onDone() { r.done, r.at = true, r.clock() }

func (e *engine) newFlowSchedule(loop int) *flowSchedule {
	s := &flowSchedule{run: e.cfg.Flow, clock: e.now, stats: e.cfg.Flow.Flow.NewStats()}
	if r := e.cfg.Flow.IterationRate; r > 0 {
		s.interval = int64(float64(e.cfg.Loops) * 1e9 / r)
		s.next = int64(float64(loop) * 1e9 / r) // the loops' starts interleaved
	}
	return s
}

// place binds user j (numbered from 1, after earlier shards') to c.
func (s *flowSchedule) place(c *conn, j int) {
	fu := &flowUser{}
	fu.u = s.run.Flow.NewUser(s.run.firstVU+j+1, s.run.users, uint64(j)*0x9e3779b97f4a7c15+1)
	fu.resp.clock = s.clock
	c.user = fu
	if h1, ok := c.ses.(*h1session); ok {
		h1.keep = &fu.resp
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

func (s *flowSchedule) fill(l *loop, c *conn, now int64) {
	fu := c.user
	if c.inflight() > 0 {
		return // a user waits for each answer
	}
	if !l.recording && l.e.cfg.Warmup == 0 {
		return // users begin when measurement does
	}
	s.measure(l, now)
	st := s.counting(l)
	if fu.warm {
		st = nil
	}
	u := fu.u
	s.settle(fu, now, st)
	for {
		switch what, at := u.Next(now, st); what {
		case flow.Send:
			q := u.Request()
			s.build(l, fu, q)
			fu.sent = now
			fu.resp.limit = 0
			if s.run.Flow.ReadsBody(q.Step) {
				fu.resp.limit = s.run.BodyLimit
			}
			l.send(c, &fu.req, now, requestMeta(q.Step, q.Method == "HEAD"), now)
			return
		case flow.Wait:
			l.wait(c, at)
			return
		case flow.Ended:
			if fu.inIter {
				fu.inIter = false
				s.active--
			}
			if s.interval > 0 {
				if !fu.free {
					fu.free = true
					s.free = append(s.free, c)
				}
				return
			}
			if s.resting(l, u, now) {
				if !fu.free {
					fu.free = true
					s.free = append(s.free, c)
				}
				return
			}
			if !s.claim(l) {
				return
			}
			fu.warm = !l.recording
			u.Begin(now)
			fu.inIter = true
			s.active++
		}
	}
}

// settle gives a user waiting for an answer what became of its request:
// the answer, which may have come before a reconnect (Connection: close;
// its latency is to when it completed), or a failure, which fails the
// step's checks and ends the iteration.
func (s *flowSchedule) settle(fu *flowUser, now int64, st *flow.Stats) {
	u := fu.u
	if !u.Waiting() {
		return
	}
	r := &fu.resp
	resp := flow.Response{Latency: now - fu.sent}
	if r.done {
		resp.Status, resp.Head, resp.Body, resp.Latency = r.status, r.head, r.body, r.at-fu.sent
	}
	r.done, r.status = false, 0
	u.Done(&resp, now, st)
	// A failed request ends the iteration now, not at the next connect,
	// which may never come.
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
// want busy again.
func (s *flowSchedule) wake(l *loop, now int64) {
	for i := 0; i < len(s.free); {
		c := s.free[i]
		if s.resting(l, c.user.u, now) {
			i++
			continue
		}
		s.free[i] = s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		c.user.free = false
		if c.state == stActive {
			l.refill(c, now)
		}
	}
}

// startCheck is how often a loop waiting for measurement to begin looks
// whether another loop began it.
const startCheck = int64(time.Millisecond)

// stageCheck is how often users resting under stages look again.
const stageCheck = int64(20 * time.Millisecond)

// counting returns the stats to count in, nil before measurement.
func (s *flowSchedule) counting(l *loop) *flow.Stats {
	if l.recording {
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

// build fills fu's request for q: its head built as HTTP/1.1 writes it,
// viewing the user's buffers.
func (s *flowSchedule) build(l *loop, fu *flowUser, q *flow.Request) {
	r := &fu.req
	s.digits = http1.BuildHead(&r.head, &http1.Request{Method: q.Method, Target: view(q.Target),
		Host: view(l.e.target.req.head.Host), Header: q.Header, Body: q.Body, UserAgent: "gust"}, s.digits[:0])
	r.body, r.wire, r.kept = q.Body, nil, false
}

// dispatch, in the open model, begins the iterations due on free users.
func (s *flowSchedule) dispatch(l *loop, now int64) {
	s.measure(l, now)
	if len(s.run.Stages) > 0 && s.recorded && len(s.free) > 0 {
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
			s.free = s.free[:0]
			return
		}
		c := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		l.recordLateness(now - s.next)
		c.user.free, c.user.inIter, c.user.warm = false, true, false
		c.user.u.Begin(s.next)
		s.active++
		s.next += s.interval
		if c.state == stActive {
			l.refill(c, now)
		}
	}
}

func (s *flowSchedule) nextDue(l *loop, now int64) int64 {
	if !l.recording && now >= int64(l.e.cfg.Warmup) {
		// Another loop may begin measuring any moment (when the last
		// connection is up): look soon, or this loop's users would
		// start up to maxWait after the others'.
		return now + startCheck
	}
	if len(s.run.Stages) > 0 && s.recorded && len(s.free) > 0 {
		return now + stageCheck
	}
	if s.interval == 0 || !s.recorded {
		return -1
	}
	return s.next
}

// reconnectAt settles the request c's socket took with it, so that its
// iteration ends now, and reconnects at once.
func (s *flowSchedule) reconnectAt(c *conn, now int64) int64 {
	var st *flow.Stats
	if s.recorded && !c.user.warm {
		st = s.stats
	}
	s.settle(c.user, now, st)
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
// this loop's users can still finish one: none is within one, or those
// that are wait for a connect that failed (the target went away).
func (s *flowSchedule) exhausted(l *loop) bool {
	n := s.run.Iterations
	if n == 0 || s.run.begun.Load() < n {
		return false
	}
	if s.active == 0 {
		return true
	}
	for _, c := range l.conns {
		if c.user.inIter && c.state != stClosed && c.state != stBackoff {
			return false
		}
	}
	return true
}
