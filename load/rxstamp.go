package load

import "time"

// rxClock times what a loop reads by when the kernel received it
// (Config.RXStamps): a loop busy with other connections reads a socket
// late, and an event stamped when it is read carries that wait; the
// kernel's stamp does not. Plain TCP sockets only: a TLS connection's
// records are timed when read, as without stamps.
type rxClock struct {
	on      bool
	wallOff int64    // the system clock minus the engine's, taken each turn
	oob     [64]byte // a read's control message (the stamp)
}

// turn takes the offset between the kernel's stamps (system clock) and
// the engine's monotonic clock; once a turn keeps it within a turn of a
// clock step.
func (r *rxClock) turn(e *engine) {
	if r.on {
		t := time.Now()
		r.wallOff = t.UnixNano() - int64(t.Sub(e.base))
	}
}

// at is the kernel stamp wall (system clock, 0 for none) on the engine's
// clock, or now when there is none or it cannot be right (after now, or a
// second before it: a clock step).
func (r *rxClock) at(wall, now int64) int64 {
	if wall == 0 {
		return now
	}
	m := wall - r.wallOff
	if m > now || now-m > int64(time.Second) {
		return now
	}
	return m
}

// readFrom reads what c's socket has into l.buf, and says when it arrived:
// its kernel stamp with Config.RXStamps on a plain socket, now otherwise.
func (l *loop) readFrom(c *conn, now int64) (int, int64, error) {
	if l.rx.on && c.tr == &c.plain {
		n, wall, err := c.plain.ReadStamped(l.buf, l.rx.oob[:])
		return n, l.rx.at(wall, now), err
	}
	n, err := c.tr.Read(l.buf)
	return n, now, err
}
