package load

import "time"

// Connection ramps (Config.ConnectRate): each loop opens its share of the
// rate's connections evenly spaced in time, the run's first connections
// and reconnects alike, so that a run of a hundred thousand connections
// does not open them all in one burst (a SYN flood of its own server,
// whose accept backlog overflows) and a server's accept rate can be
// measured.
//
// Config.RampUp is a pace of its own for each connection's first opening
// (Connections/RampUp per second); ConnectRate, if also given, paces the
// reconnects (and, without a RampUp, the first openings too).

// connectPace spaces a loop's connects by every ns; zero: no pacing.
type connectPace struct {
	every int64
	next  int64 // when the next connect may start
}

// newConnectPace paces one loop of loops sharing rate connects/s.
func newConnectPace(rate float64, loops int) connectPace {
	if rate <= 0 {
		return connectPace{}
	}
	return connectPace{every: max(1, int64(float64(loops)*1e9/rate))}
}

// slot returns when a connect asked for at now may start, and takes that
// slot: now if the pace allows, a later time otherwise.
func (p *connectPace) slot(now int64) int64 {
	if p.every == 0 {
		return now
	}
	at := max(now, p.next)
	p.next = at + p.every
	return at
}

// newRampUp paces one loop of loops opening conns connections evenly
// over d; zero d: no pacing.
func newRampUp(conns int, d time.Duration, loops int) connectPace {
	if d <= 0 {
		return connectPace{}
	}
	return newConnectPace(float64(conns)/d.Seconds(), loops)
}

// paceFor returns the pace c's next connect keeps: the ramp-up's until c
// has been connected once, ConnectRate's after.
func (l *loop) paceFor(c *conn) *connectPace {
	if !c.everConnected && l.ramp.every > 0 {
		return &l.ramp
	}
	return &l.pace
}
