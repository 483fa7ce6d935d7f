package load

import "time"

// rxClock times what a loop reads by when the kernel received it
// (Config.RXStamps): a loop busy with other connections reads a socket
// late, and an event stamped when it is read carries that wait; the
// kernel's stamp does not. Plain TCP sockets only: a TLS connection's
// records are timed when read, as without stamps.
type rxClock struct {
	on      bool
	started bool     // wallOff was taken once
	stepped bool     // the system clock jumped since the last turn: this turn's stamps are not used
	wallOff int64    // the system clock minus the engine's, taken each turn
	oob     [64]byte // a read's control message (the stamp)
}

// rxClockStep is how far the offset between the system clock and the
// engine's may move between turns before it counts as a step of the
// system clock (NTP slews it by microseconds a second).
const rxClockStep = int64(10 * time.Millisecond)

// turn takes the offset between the kernel's stamps (system clock) and
// the engine's monotonic clock, and notes a step of the system clock.
func (r *rxClock) turn(e *engine) {
	if !r.on {
		return
	}
	t := time.Now()
	off := t.UnixNano() - int64(t.Sub(e.base))
	d := off - r.wallOff
	r.stepped = r.started && (d > rxClockStep || d < -rxClockStep)
	r.wallOff, r.started = off, true
}

// at is the kernel stamp wall (system clock, 0 for none) on the engine's
// clock. now is when the loop came to the connection: a stamp after it is
// of data that arrived while the connection was read, and is kept, up to
// the engine's clock at this moment. Without a stamp, or in a turn the
// system clock stepped, it is now.
func (r *rxClock) at(wall, now int64, e *engine) int64 {
	if wall == 0 || r.stepped {
		return now
	}
	m := wall - r.wallOff
	if m > now {
		return min(m, e.now())
	}
	return m
}

// readFrom reads what c's socket has into l.buf, and says when it arrived:
// its kernel stamp with Config.RXStamps on a plain socket, now otherwise.
func (l *loop) readFrom(c *conn, now int64) (int, int64, error) {
	if l.rx.on && c.tr == &c.plain {
		n, wall, err := c.plain.ReadStamped(l.buf, l.rx.oob[:])
		return n, l.rx.at(wall, now, l.e), err
	}
	n, err := c.tr.Read(l.buf)
	return n, now, err
}
