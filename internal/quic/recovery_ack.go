package quic

import "time"

// OnAckReceived processes an ACK frame's ranges received in space at now,
// its ACK Delay decoded (see AckDelay), as appendix A.7 does: newly
// acknowledged packets update the RTT (the largest of them, if it is the
// ACK's largest and any is ack-eliciting), losses are detected, and the
// acknowledged packets leave the bytes in flight and grow the window. h
// hears of each lost packet, then of each acknowledged one; it must not
// call back into r. An ACK of a packet number never sent is a
// PROTOCOL_VIOLATION, and changes nothing. ACKs of a discarded space are
// ignored.
func (r *Recovery) OnAckReceived(space Space, ack AckRangeReader, ackDelay time.Duration, now time.Time, h LossHandler) error {
	s := r.spaces[space]
	if s.discarded {
		return nil
	}
	largest, ok, err := r.checkAck(s, ack)
	if err != nil || !ok {
		return err
	}
	if !s.hasAcked || largest > s.largestAcked {
		s.largestAcked, s.hasAcked = largest, true
	}
	if space == SpaceHandshake {
		r.peerValidated = true
	}
	if i := s.sent.search(largest); i < s.sent.len() && s.sent.at(i).p.Number == largest {
		s.largestAckedSent = s.sent.at(i).p.Time
	}
	// DetectAndRemoveAckedPackets: marked pending until losses are found.
	var newest *sentEntry
	newly, eliciting := 0, false
	for rd := ack; ; {
		lo, hi, more := rd.Next()
		if !more {
			break
		}
		i, j := s.sent.span(lo, hi)
		for k := j - 1; k >= i; k-- {
			e := s.sent.at(k)
			if e.state != sentOutstanding {
				continue
			}
			e.state = sentAckPending
			if newest == nil {
				newest = e
			}
			newly++
			eliciting = eliciting || e.p.AckEliciting
		}
	}
	r.lastEvent = now
	if newly == 0 {
		return nil
	}
	if newest.p.Number == largest && eliciting {
		if !r.RTT.HasSample() {
			r.firstSample = now
		}
		if space == SpaceInitial {
			// An Initial ACK is never delayed (RFC 9002 section 5.3).
			ackDelay = 0
		}
		r.RTT.Update(now.Sub(newest.p.Time), ackDelay, r.confirmed, r.MaxAckDelay)
	}
	r.detectLost(space, now, h)
	// OnPacketsAcked.
	for rd := ack; ; {
		lo, hi, more := rd.Next()
		if !more {
			break
		}
		i, j := s.sent.span(lo, hi)
		for k := j - 1; k >= i; k-- {
			e := s.sent.at(k)
			if e.state != sentAckPending {
				continue
			}
			e.state = sentAcked
			if e.p.InFlight {
				r.bytesInFlight -= e.p.Size
				if e.p.AckEliciting {
					s.elicitingInFlight--
				}
				r.CC.OnAcked(e.p.Time, e.p.Size)
			}
			h.Acked(space, &e.p)
		}
	}
	s.sent.popDone()
	if r.peerCompletedAddressValidation() {
		r.ptoCount = 0
	}
	r.updatePacer()
	return nil
}

// checkAck walks an ACK's ranges before anything changes, and returns its
// largest acknowledged number; errAckUnsent if it acknowledges a number
// above the largest sent, or one between the oldest and newest packets
// kept that was skipped.
func (r *Recovery) checkAck(s *spaceRecovery, ack AckRangeReader) (largest uint64, ok bool, err error) {
	for {
		lo, hi, more := ack.Next()
		if !more {
			return largest, ok, nil
		}
		if !ok {
			largest, ok = hi, true
		}
		if !s.hasSent || hi > s.largestSent || lo > hi {
			return 0, false, errAckUnsent
		}
		if s.sent.len() == 0 {
			continue
		}
		lo = max(lo, s.sent.at(0).p.Number)
		if lo > hi {
			continue
		}
		if i, j := s.sent.span(lo, hi); uint64(j-i) != hi-lo+1 {
			return 0, false, errAckUnsent
		}
	}
}

// detectLost is appendix A.10's DetectAndRemoveLostPackets followed by
// A.9's OnPacketsLost: the outstanding packets up to the largest
// acknowledged that were sent a loss delay ago or PacketThreshold numbers
// below it are lost, and the earliest time another will be is the
// space's loss time. Losses are a congestion event, and persistent
// congestion if two ack-eliciting packets lost, sent after the first RTT
// sample with no acknowledged packet between them, were sent more than
// the persistent congestion duration apart (RFC 9002 section 7.6; in this
// space only).
func (r *Recovery) detectLost(space Space, now time.Time, h LossHandler) {
	s := r.spaces[space]
	if s.discarded {
		return
	}
	s.lossTime = time.Time{}
	if !s.hasAcked {
		return
	}
	lossDelay := r.RTT.LossDelay()
	lostSendTime := now.Add(-lossDelay)
	pcDuration := r.RTT.PersistentCongestion(r.MaxAckDelay)
	var lastLoss, runStart time.Time
	persistent := false
	for i := range s.sent.len() {
		e := s.sent.at(i)
		if e.p.Number > s.largestAcked {
			break
		}
		switch e.state {
		case sentAcked, sentAckPending:
			runStart = time.Time{}
			continue
		case sentLost:
			continue
		}
		if e.p.Time.After(lostSendTime) && s.largestAcked < e.p.Number+PacketThreshold {
			// Later packets were sent later still: none of them is lost.
			s.lossTime = e.p.Time.Add(lossDelay)
			break
		}
		e.state = sentLost
		r.stats.PacketsLost++
		if e.p.InFlight {
			r.bytesInFlight -= e.p.Size
			r.stats.BytesLost += uint64(e.p.Size)
			if e.p.AckEliciting {
				s.elicitingInFlight--
			}
			if e.p.Time.After(lastLoss) {
				lastLoss = e.p.Time
			}
		}
		if e.p.AckEliciting && !r.firstSample.IsZero() && e.p.Time.After(r.firstSample) {
			if runStart.IsZero() {
				runStart = e.p.Time
			} else if e.p.Time.Sub(runStart) > pcDuration {
				persistent = true
			}
		}
		h.Lost(space, &e.p)
	}
	if !lastLoss.IsZero() && r.CC.OnCongestionEvent(lastLoss, now) {
		r.stats.CongestionEvents++
	}
	if persistent {
		r.CC.OnPersistentCongestion()
		r.stats.Persistent++
	}
	s.sent.popDone()
}

// OnECN processes the ECN-CE count of an ACK of type 0x03 received in
// space at now, after OnAckReceived: a count above the last one is a
// congestion event for the ACK's largest acknowledged packet
// (appendix A.7's ProcessECN).
func (r *Recovery) OnECN(space Space, ceCount uint64, now time.Time) {
	s := r.spaces[space]
	if s.discarded || ceCount <= s.ecnCE {
		return
	}
	s.ecnCE = ceCount
	if !s.largestAckedSent.IsZero() && r.CC.OnCongestionEvent(s.largestAckedSent, now) {
		r.stats.CongestionEvents++
		r.updatePacer()
	}
}
