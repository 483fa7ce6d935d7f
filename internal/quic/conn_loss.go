package quic

import "time"

// lossTracker is the connection's loss detection and congestion window
// (RFC 9002): packets in flight per space, the RTT estimate, the loss and
// probe timers, and a NewReno window. It calls back onPacketAcked and
// onPacketLost with each packet's record handle.
type lossTracker struct {
	sent          [numSpaces][]trackedPacket
	eliciting     [numSpaces]int // ack-eliciting packets in flight
	lastEliciting [numSpaces]time.Time
	lastSent      time.Time
	lossTime      [numSpaces]time.Time
	ptoCount      int
	rtt           RTT
	maxAckDelay   time.Duration

	cwnd, ssthresh, inFlight int
	recoveryStart            time.Time
	ranges                   [64]Range
}

// trackedPacket is one packet in flight.
type trackedPacket struct {
	pn           uint64
	time         time.Time
	size         int
	ackEliciting bool
	handle       uint32
}

const (
	initialWindow = 10 * minUDPPayloadSize
	minimumWindow = 2 * minUDPPayloadSize
)

func (l *lossTracker) init() {
	l.cwnd, l.ssthresh = initialWindow, 1<<62
	for i := range l.sent {
		l.sent[i] = make([]trackedPacket, 0, 64)
	}
}

// pto returns the probe timeout before backoff.
func (l *lossTracker) pto(maxAckDelay time.Duration) time.Duration {
	return l.rtt.PTO(maxAckDelay)
}

// canSend reports whether the window takes another datagram of size.
func (l *lossTracker) canSend(size int) bool { return l.inFlight+size <= l.cwnd }

// onSent tracks an ack-eliciting packet.
func (l *lossTracker) onSent(sp spaceID, p trackedPacket) {
	l.sent[sp] = append(l.sent[sp], p)
	l.inFlight += p.size
	l.eliciting[sp]++
	l.lastEliciting[sp] = p.time
	l.lastSent = p.time
}

// onAck takes an ACK frame of space sp (RFC 9002 sections 5 and 6).
func (l *lossTracker) onAck(c *Conn, sp spaceID, f *Frame, now time.Time) error {
	space := &c.spaces[sp]
	if f.LargestAcked >= space.nextPN {
		return &TransportError{Code: ProtocolViolation, Reason: "ACK of a packet never sent"}
	}
	n := 0
	rr := f.AckRanges()
	for n < len(l.ranges) {
		lo, hi, ok := rr.Next()
		if !ok {
			break
		}
		l.ranges[n] = Range{lo, hi}
		n++
	}
	if int64(f.LargestAcked) > space.largestAcked {
		space.largestAcked = int64(f.LargestAcked)
	}
	var largestNew trackedPacket
	hasLargest := false
	anyEliciting := false
	keep := l.sent[sp][:0]
	newly := 0
	for i := range l.sent[sp] {
		p := l.sent[sp][i]
		if !l.acked(p.pn, n) {
			keep = append(keep, p)
			continue
		}
		newly++
		if p.pn == f.LargestAcked {
			largestNew, hasLargest = p, true
		}
		anyEliciting = anyEliciting || p.ackEliciting
		l.inFlight -= p.size
		l.eliciting[sp]--
		if p.time.After(l.recoveryStart) {
			if l.cwnd < l.ssthresh {
				l.cwnd += p.size
			} else {
				l.cwnd += minUDPPayloadSize * p.size / l.cwnd
			}
		}
		c.onPacketAcked(sp, p.pn, p.handle)
	}
	l.sent[sp] = keep
	if newly == 0 {
		return nil
	}
	if hasLargest && anyEliciting {
		delay := time.Duration(0)
		if sp == spaceApp {
			delay = AckDelay(f.AckDelay, c.peer.AckDelayExponent)
		}
		l.rtt.Update(now.Sub(largestNew.time), delay, c.handshakeConfirmed, l.maxAckDelay)
	}
	if c.handshakeConfirmed || sp != spaceApp || !c.isClient {
		l.ptoCount = 0
	}
	l.detectLost(c, sp, now)
	return nil
}

// acked reports whether pn is in the first n ranges read from an ACK.
func (l *lossTracker) acked(pn uint64, n int) bool {
	for _, r := range l.ranges[:n] {
		if pn >= r.Lo && pn <= r.Hi {
			return true
		}
	}
	return false
}

// detectLost declares lost the packets below the largest acknowledged by
// the packet or the time threshold, and arms the loss timer for the rest.
func (l *lossTracker) detectLost(c *Conn, sp spaceID, now time.Time) {
	largest := c.spaces[sp].largestAcked
	l.lossTime[sp] = time.Time{}
	if largest < 0 {
		return
	}
	delay := l.rtt.LossDelay()
	keep := l.sent[sp][:0]
	var lostAny time.Time
	for _, p := range l.sent[sp] {
		if int64(p.pn) > largest {
			keep = append(keep, p)
			continue
		}
		if int64(p.pn)+PacketThreshold <= largest || !p.time.Add(delay).After(now) {
			l.inFlight -= p.size
			l.eliciting[sp]--
			if p.time.After(lostAny) {
				lostAny = p.time
			}
			c.onPacketLost(sp, p.handle)
			continue
		}
		keep = append(keep, p)
		l.lossTime[sp] = earliest(l.lossTime[sp], p.time.Add(delay))
	}
	l.sent[sp] = keep
	if !lostAny.IsZero() && lostAny.After(l.recoveryStart) {
		l.recoveryStart = now
		l.cwnd = max(l.cwnd/2, minimumWindow)
		l.ssthresh = l.cwnd
	}
}

// timeout returns when the loss timer or the probe timer fires.
func (l *lossTracker) timeout(c *Conn) time.Time {
	var t time.Time
	for sp := range numSpaces {
		t = earliest(t, l.lossTime[sp])
	}
	if !t.IsZero() {
		return t
	}
	if sp, ok := l.ptoSpace(c); ok {
		base := l.lastEliciting[sp]
		if l.eliciting[sp] == 0 {
			base = l.lastSent
		}
		d := l.rtt.PTO(0)
		if sp == spaceApp {
			d = l.rtt.PTO(l.maxAckDelay)
		}
		return base.Add(d << min(l.ptoCount, 16))
	}
	return t
}

// ptoSpace returns the space whose probe timer runs: the earliest with
// ack-eliciting packets in flight, or, for a client still in its
// handshake, the highest with keys (RFC 9002 section 6.2.2.1).
func (l *lossTracker) ptoSpace(c *Conn) (spaceID, bool) {
	for sp := range numSpaces {
		if l.eliciting[sp] > 0 && (sp != spaceApp || c.handshakeComplete) {
			return sp, true
		}
	}
	if c.isClient && !c.handshakeConfirmed && !l.lastSent.IsZero() {
		if c.spaces[spaceHandshake].write != nil && !c.spaces[spaceHandshake].dropped {
			return spaceHandshake, true
		}
		if !c.spaces[spaceInitial].dropped {
			return spaceInitial, true
		}
	}
	return 0, false
}

// onTimeout runs the loss timer or the probe timer.
func (l *lossTracker) onTimeout(c *Conn, now time.Time) {
	for sp := range numSpaces {
		if !l.lossTime[sp].IsZero() && !now.Before(l.lossTime[sp]) {
			l.detectLost(c, sp, now)
			return
		}
	}
	sp, ok := l.ptoSpace(c)
	if !ok {
		return
	}
	l.ptoCount++
	// The probe carries again what is in flight in the space: a probe
	// that is acknowledged delivers it, and nothing waits on a later PTO.
	for _, p := range l.sent[sp] {
		l.inFlight -= p.size
		c.onPacketLost(sp, p.handle)
	}
	l.sent[sp] = l.sent[sp][:0]
	l.eliciting[sp] = 0
	c.probeOwed[sp] = 1
	l.lastSent = now
}

// discard forgets the packets of a space whose keys are gone.
func (l *lossTracker) discard(c *Conn, sp spaceID) {
	for _, p := range l.sent[sp] {
		l.inFlight -= p.size
		c.recs.release(p.handle)
	}
	l.sent[sp] = l.sent[sp][:0]
	l.eliciting[sp] = 0
	l.lossTime[sp] = time.Time{}
	l.ptoCount = 0
}
