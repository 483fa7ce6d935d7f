package load

// holdSchedule holds WebSocket connections (WebSocketConfig.Hold): no
// messages, only a ping every interval once a connection is upgraded,
// timed by the loop's timer heap, so that a hundred thousand held
// connections cost no goroutine and no wake-up between their pings.
type holdSchedule struct {
	every int64 // ns between a connection's pings
}

func (s holdSchedule) fill(l *loop, c *conn, now int64) {
	ws, ok := c.ses.(*wsSession)
	if !ok || !ws.open() {
		return // not upgraded yet: the 101's read refills
	}
	if ws.nextPing == 0 {
		ws.nextPing = now + s.every // the first ping one interval after the upgrade
	}
	if now >= ws.nextPing {
		c.wbuf = ws.ping(c.wbuf)
		ws.nextPing = now + s.every
	}
	l.wait(c, ws.nextPing)
}

func (holdSchedule) place(c *conn, j int)                 {}
func (holdSchedule) dispatch(l *loop, now int64)          {}
func (holdSchedule) nextDue(l *loop, now int64) int64     { return -1 }
func (holdSchedule) reconnectAt(c *conn, now int64) int64 { return now }
func (holdSchedule) begin(c *conn, start int64)           {}
func (holdSchedule) connectFailed(l *loop, now int64) int { return 1 }
func (holdSchedule) exhausted(l *loop) bool               { return false }
