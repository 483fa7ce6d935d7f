package quic

import "time"

// lossTracker joins the connection to Recovery (loss detection, NewReno,
// the pacer): packets sent and ACKs go in, acknowledged and lost packets
// come back to the connection's records by their handle.
type lossTracker struct {
	r Recovery
}

// noFrames is the handle of a packet with nothing to resend or release.
const noFrames = ^uint32(0)

// connLoss is the Conn as Recovery's LossHandler, a conversion of the
// pointer, so handing it over allocates nothing.
type connLoss Conn

// Acked releases what an acknowledged packet carried.
func (h *connLoss) Acked(space Space, p *SentPacket) {
	if p.ECT {
		h.ecn.newlyAcked++
	}
	if p.Frames != noFrames {
		(*Conn)(h).onPacketAcked(spaceID(space), p.Number, p.Frames)
	}
}

// Lost queues again what a lost packet carried.
func (h *connLoss) Lost(space Space, p *SentPacket) {
	if p.ECT {
		h.ecn.onLost()
	}
	if p.Frames != noFrames {
		(*Conn)(h).onPacketLost(spaceID(space), p.Frames)
	}
}

func (l *lossTracker) init(server bool) { l.r.Init(server, minUDPPayloadSize) }

// pto returns the probe timeout before backoff.
func (l *lossTracker) pto(maxAckDelay time.Duration) time.Duration {
	return l.r.RTT.PTO(maxAckDelay)
}

// canSend reports whether the congestion window takes another datagram.
func (l *lossTracker) canSend() bool { return l.r.CanSend() }

// onSent records a packet sent, marked ECT(0) or not; one that elicits no
// ACK has no frames to resend and is not in flight.
func (l *lossTracker) onSent(sp spaceID, pn uint64, now time.Time, size int, eliciting, marked bool, handle uint32) {
	if !eliciting {
		handle = noFrames
	}
	l.r.OnPacketSent(Space(sp), SentPacket{Number: pn, Time: now, Size: size,
		AckEliciting: eliciting, InFlight: eliciting, ECT: marked, Frames: handle})
}

// onAck takes an ACK frame of space sp.
func (l *lossTracker) onAck(c *Conn, sp spaceID, f *Frame, now time.Time) error {
	delay := time.Duration(0)
	if sp == spaceApp {
		delay = AckDelay(f.AckDelay, uint64(c.peer.ackDelayExponent))
	}
	return l.r.OnAckReceived(Space(sp), f.AckRanges(), delay, now, (*connLoss)(c))
}

// timeout returns when the loss detection timer fires; zero if unarmed.
func (l *lossTracker) timeout() time.Time { return l.r.LossTimeout() }

// onTimeout runs the loss detection timer. A PTO owes probe packets in
// its space; in the Initial and Handshake spaces they carry again the
// crypto data not yet acknowledged, so that a lost flight is resent
// without waiting for an ACK.
func (l *lossTracker) onTimeout(c *Conn, now time.Time) {
	probes, space := l.r.OnLossTimeout(now, (*connLoss)(c))
	if probes == 0 {
		return
	}
	sp := spaceID(space)
	if s := c.spaces[sp]; s.write == nil || s.dropped {
		if sp == spaceHandshake && !c.spaces[spaceInitial].dropped {
			sp = spaceInitial
		} else {
			return
		}
	}
	c.probeOwed[sp] = uint8(min(probes, 255))
	if sp != spaceApp {
		cs := &c.spaces[sp].cryptoSend
		cs.onLost(cs.base, int(cs.next-cs.base), false)
	}
}

// discard forgets a space whose keys are gone, and frees its records.
func (l *lossTracker) discard(c *Conn, sp spaceID) {
	l.r.DiscardSpace(Space(sp))
	c.recs.releaseSpace(sp)
}
