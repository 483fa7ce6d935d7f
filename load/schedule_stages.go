package load

import "math"

// stagesSchedule is the open model with a rate that changes
// (Config.Stages): the n-th request of the run is intended at N⁻¹(n), the
// inverse of the stages' cumulative count, and latency counts from that
// time. Loop i of L takes the requests n = i, i+L, i+2L, ..., so the loops
// share every second's count exactly and their sends interleave.
//
// The loop's connections are a pool: a request that comes due goes to
// the connection that has room, the one whose response just came in or
// the longest idle (the loop's idle queue, as with a Source). When none
// has room the request would start late, and the pool grows, up to the
// loop's share of Config.MaxConnections, by as many connections as
// requests are overdue; the pool never shrinks.
type stagesSchedule struct {
	c     *curve
	step  float64 // L, the loops sharing the curve
	n     float64 // the loop's next request
	seg   int     // where curve.timeOf resumes
	start int64   // when the curve began, on the loop's clock
	due   int64   // when request n is intended; never before begin or after the curve
	slots int     // requests one new connection can carry at once

	maxConns int     // the loop's share of Config.MaxConnections
	growing  []*conn // connections the pool opened that are not ready yet
	idle     idleQueue
}

// never is a due time that does not come.
const never = math.MaxInt64

func (e *engine) newStagesSchedule(loop int) *stagesSchedule {
	cfg := &e.cfg
	slots := cfg.Pipeline
	if cfg.speaksHTTP2() {
		slots = max(slots, cfg.Streams)
	}
	loops := cfg.Loops
	return &stagesSchedule{
		c:        e.curve,
		step:     float64(loops),
		n:        float64(loop),
		due:      never,
		slots:    slots,
		maxConns: loopShare(max(cfg.MaxConnections, cfg.Connections), loops, loop),
	}
}

// fill sends c the requests that are due, up to its room; a connection
// with room left waits in the idle queue for the next one.
func (s *stagesSchedule) fill(l *loop, c *conn, now int64) {
	l.resend(c, now)
	for c.ses.room() > 0 && s.due <= now && l.mayStart() {
		req, meta := l.nextRequest()
		l.recordLateness(now - s.due)
		l.send(c, req, s.due, meta, now)
		s.advance()
	}
	if c.ses.room() > 0 {
		s.idle.park(c)
	}
}

// advance moves to the loop's next request.
func (s *stagesSchedule) advance() {
	s.n += s.step
	s.due = s.at(s.n)
}

// at returns when request n is intended on the loop's clock, or never.
func (s *stagesSchedule) at(n float64) int64 {
	t := s.c.timeOf(n, &s.seg)
	if t < 0 {
		return never
	}
	return s.start + t
}

// dispatch gives due requests to idle connections, oldest idle first, and
// grows the pool when none is left for a request that is due.
func (s *stagesSchedule) dispatch(l *loop, now int64) {
	for s.due <= now && s.idle.len() > 0 {
		l.refill(s.idle.take(), now)
	}
	if s.due <= now && s.idle.len() == 0 && len(l.conns) < s.maxConns {
		s.grow(l, now)
	}
}

// grow opens connections for the requests that are overdue, less those
// the pool is already opening.
func (s *stagesSchedule) grow(l *loop, now int64) {
	opening := s.growing[:0]
	for _, c := range s.growing {
		if !c.everConnected && c.state != stBackoff {
			opening = append(opening, c)
		}
	}
	clear(s.growing[len(opening):])
	s.growing = opening
	overdue := math.Floor((s.c.count(float64(now-s.start)/1e9)-s.n)/s.step) + 1
	need := int(math.Ceil(overdue/float64(s.slots))) - len(s.growing)
	for ; need > 0 && len(l.conns) < s.maxConns; need-- {
		c := l.addConn()
		s.growing = append(s.growing, c)
		l.connect(c, now)
	}
}

// loopShare is loop i's share of n spread over loops as newLoops spreads
// connections: j goes to loop j%loops.
func loopShare(n, loops, i int) int {
	share := n / loops
	if i < n%loops {
		share++
	}
	return share
}

// nextDue is when the next request is due, if a connection is idle to
// take it; otherwise a response or a new connection wakes the loop.
func (s *stagesSchedule) nextDue(l *loop, now int64) int64 {
	if s.idle.len() == 0 || s.due == never {
		return -1
	}
	return s.due
}

// begin starts the curve at start, once for the loop.
func (s *stagesSchedule) begin(c *conn, start int64) {
	if s.due != never || s.n >= s.c.total {
		return
	}
	s.start = start
	s.due = s.at(s.n)
}

// connectFailed fails the requests that are due when no connection is
// left to carry them, so that a target that went down gets errors at
// the curve's rate rather than a burst when it comes back.
func (s *stagesSchedule) connectFailed(l *loop, now int64) int {
	if l.live > 0 {
		return 1
	}
	n := 0
	for s.due <= now {
		s.advance()
		n++
	}
	return max(n, 1)
}

func (s *stagesSchedule) place(c *conn, j int)                 {}
func (s *stagesSchedule) reconnectAt(c *conn, now int64) int64 { return now }
func (s *stagesSchedule) exhausted(l *loop) bool               { return false }
