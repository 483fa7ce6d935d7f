package load

// closedSchedule is the closed model: every connection keeps as many
// requests in flight as it may, sending the next as a response comes back.
type closedSchedule struct{}

func (closedSchedule) fill(l *loop, c *conn, now int64) {
	start := now
	if l.e.cfg.DisableKeepAlive {
		start = c.connectStart // the user waits for the connect too
	}
	l.resend(c, now)
	for c.ses.room() > 0 && l.mayStart() {
		req, meta := l.nextRequest()
		l.send(c, req, start, meta, now)
	}
}

func (closedSchedule) place(c *conn, j int)                 {}
func (closedSchedule) dispatch(l *loop, now int64)          {}
func (closedSchedule) nextDue(l *loop, now int64) int64     { return -1 }
func (closedSchedule) reconnectAt(c *conn, now int64) int64 { return now }
func (closedSchedule) begin(c *conn, start int64)           {}
func (closedSchedule) connectFailed(l *loop, now int64) int { return targetConnectFailed(l) }
func (closedSchedule) exhausted(l *loop) bool               { return false }
