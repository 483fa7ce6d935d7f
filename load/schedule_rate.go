package load

// rateSchedule is the open model at a constant rate: each connection sends
// every interval, the connections staggered so that the total is evenly
// spaced, and latency counts from each request's intended time.
type rateSchedule struct {
	interval int64   // ns between sends on one connection
	spacing  float64 // ns between the first sends of successive connections
}

// place staggers the connections' schedules so the total is evenly spaced.
func (s *rateSchedule) place(c *conn, j int) { c.next = int64(float64(j) * s.spacing) }

func (s *rateSchedule) fill(l *loop, c *conn, now int64) {
	l.resend(c, now)
	for c.ses.room() > 0 && c.next <= now && l.mayStart() {
		req, meta := l.nextRequest()
		l.recordLateness(now - c.next)
		l.send(c, req, c.next, meta, now)
		c.next += s.interval
	}
	if c.ses.room() > 0 && c.next > now {
		l.wait(c, c.next)
	}
}

func (s *rateSchedule) reconnectAt(c *conn, now int64) int64 { return max(c.next, now) }
func (s *rateSchedule) begin(c *conn, start int64)           { c.next += start }

func (s *rateSchedule) dispatch(l *loop, now int64)          {}
func (s *rateSchedule) nextDue(l *loop, now int64) int64     { return -1 }
func (s *rateSchedule) connectFailed(l *loop, now int64) int { return targetConnectFailed(l) }
func (s *rateSchedule) exhausted(l *loop) bool               { return false }
