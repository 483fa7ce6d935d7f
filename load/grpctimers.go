package load

// grpcTimer brings a session with streaming gRPC calls back at time at, to
// send the messages then due (grpcstream.go). gen is the session's socket
// generation when it was armed: a timer of an earlier socket is stale.
type grpcTimer struct {
	at  int64
	c   *conn
	gen uint32
}

// grpcTimers is a binary min-heap of grpcTimer by at. A session arms one
// timer at a time (grpcStreams.armed); an entry superseded by an earlier
// one stays until it is due and is then passed over, so that nothing is
// searched for, and nothing is allocated once the slice has grown.
type grpcTimers []grpcTimer

func (h *grpcTimers) push(t grpcTimer) {
	*h = append(*h, t)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].at <= q[i].at {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
}

// next returns the time of the earliest timer; ok is false for none.
func (h grpcTimers) next() (at int64, ok bool) {
	if len(h) == 0 {
		return 0, false
	}
	return h[0].at, true
}

func (h *grpcTimers) pop() grpcTimer {
	q := *h
	t := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = grpcTimer{}
	q = q[:last]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < len(q) && q[l].at < q[m].at {
			m = l
		}
		if r < len(q) && q[r].at < q[m].at {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return t
}

// fireGRPCTimers sends the streaming calls' messages that are due.
func (l *loop) fireGRPCTimers(now int64) {
	for len(l.gtimers) > 0 && l.gtimers[0].at <= now {
		t := l.gtimers.pop()
		c := t.c
		s, ok := c.ses.(*h2session)
		if !ok || s.gs == nil || s.gs.gen != t.gen || s.gs.armed != t.at || c.state != stActive || s.cc == nil {
			continue // stale
		}
		s.gs.armed = 0
		if out := s.grpcPumpAll(now); len(out) > 0 {
			l.dv = delivery{l: l, c: c, now: now}
			l.dv.reply(out)
			l.refill(c, now)
		}
	}
}
