package quic

import "time"

// AppendDatagram appends the next datagram to send to b and reports
// whether there was one; call it until it says no. The datagram holds one
// packet per space with something to send, coalesced, at most the
// datagram size the path allows. b should have room for that and the
// AEAD tags (2048 bytes of capacity does): then nothing is allocated.
func (c *Conn) AppendDatagram(b []byte, now time.Time) ([]byte, bool) {
	start := len(b)
	c.ecn.mark = c.ecn.nextMark(c.handshakeConfirmed)
	switch c.state {
	case stateClosed, stateDraining:
		return b, false
	case stateClosing:
		if !c.closeOwed {
			return b, false
		}
		c.closeOwed = false
		b = c.appendPacket(b, c.closeSpace, start+int(c.maxDatagram), 0, now, true)
		return b, len(b) > start
	}
	size := int(c.maxDatagram)
	if !c.addrValidated {
		budget := int(3*c.bytesRecv) - int(c.bytesSent)
		if budget < size {
			size = budget
		}
		if size < 64 {
			c.loss.r.SetAmplificationBlocked(true)
			return b, false
		}
	}
	var want [numSpaces]bool
	last := -1
	for sp := range numSpaces {
		if want[sp] = c.spaceWants(sp, now); want[sp] {
			last = int(sp)
		}
	}
	if last < 0 {
		return b, false
	}
	padTo := 0
	if want[spaceInitial] && (c.isClient || c.spaces[spaceInitial].cryptoSend.pending(1<<62) || c.probeOwed[spaceInitial] > 0) {
		padTo = start + min(minUDPPayloadSize, size)
	}
	sentHandshake := false
	for sp := range numSpaces {
		if !want[sp] {
			continue
		}
		pad := 0
		if int(sp) == last {
			pad = padTo
		}
		n := len(b)
		b = c.appendPacket(b, sp, start+size, pad, now, false)
		sentHandshake = sentHandshake || (sp == spaceHandshake && len(b) > n)
	}
	if c.isClient && sentHandshake {
		c.dropSpace(spaceInitial) // RFC 9001 section 4.9.1
	}
	if !c.addrValidated {
		c.bytesSent += uint64(len(b) - start)
	}
	return b, len(b) > start
}

// spaceWants reports whether space sp has something to send now.
func (c *Conn) spaceWants(sp spaceID, now time.Time) bool {
	s := c.spaces[sp]
	if s.write == nil || s.dropped || (sp == spaceApp && !c.handshakeComplete) {
		return false
	}
	if (!s.ackDeadline.IsZero() && !now.Before(s.ackDeadline)) || c.probeOwed[sp] > 0 {
		return true
	}
	if s.cryptoSend.pending(1 << 62) {
		return true
	}
	return sp == spaceApp && c.appWants(now)
}

// appWants reports whether 1-RTT frames other than ACK wait to be sent.
func (c *Conn) appWants(now time.Time) bool {
	if c.handshakeDoneOwed || c.pathResponseDue || c.flow.maxDataOwed || c.flow.blockedOwed ||
		c.strms.limitOwed[0] || c.strms.limitOwed[1] || c.strms.blocked[0] || c.strms.blocked[1] ||
		len(c.cids.retireOwed) > 0 {
		return true
	}
	for i := range c.cids.local {
		if c.cids.local[i].owed {
			return true
		}
	}
	if !c.loss.canSend() {
		// The congestion window, not the pacer, holds the data back now:
		// an old pacing time would stay a timeout in the past (and a
		// loop waiting on it would never wait). An ACK reopens the window.
		c.paceAt = time.Time{}
		return false
	}
	credit := c.flow.credit()
	for _, s := range c.strms.sendq {
		if s.sendWork(credit) {
			return c.paced(now)
		}
	}
	return false
}

// paced reports whether the pacer lets a datagram go at now; if not, the
// time it will is a timeout.
func (c *Conn) paced(now time.Time) bool {
	t := c.loss.r.NextSendTime(now, int(c.maxDatagram))
	if t.After(now) {
		c.paceAt = t
		return false
	}
	c.paceAt = time.Time{}
	return true
}

// appendPacket appends one packet of space sp, ending by limit, padded to
// end at padTo if that is further; closing sends the CONNECTION_CLOSE
// alone. Nothing is appended if nothing is to be sent.
func (c *Conn) appendPacket(b []byte, sp spaceID, limit, padTo int, now time.Time, closing bool) []byte {
	s := c.spaces[sp]
	pn := s.nextPN
	pnLen := PacketNumberLen(pn, s.largestAcked)
	pktStart := len(b)
	if sp == spaceApp {
		b = AppendShortHeader(b, false, c.keys.phase, c.cids.dcid(), pn, pnLen)
	} else {
		typ, token := PacketHandshake, []byte(nil)
		if sp == spaceInitial {
			typ, token = PacketInitial, c.token
		}
		b = AppendLongHeader(b, typ, c.cids.dcid(), c.cids.scid(), token, 0, pn, pnLen)
	}
	pnOff := len(b) - pnLen
	payloadStart := len(b)
	end := limit - Overhead
	p := packetBuilder{recs: &c.recs, handle: c.recs.get(sp)}
	if closing {
		b = append(b, c.end.frame...)
	} else {
		// A probe carries the ACK state again too: the ACK that answered
		// the peer may be what was lost.
		if (s.ackNew || c.probeOwed[sp] > 0) && s.recv.Len() > 0 && end-len(b) > 64 {
			delay := uint64(now.Sub(s.largestRecvTime)/time.Microsecond) >> ackDelayExponent
			b = AppendAckFrame(b, &s.recv, delay, s.ackECN(), 16)
			s.ackNew, s.ackEliciting, s.ackDeadline = false, 0, time.Time{}
		}
		probe := c.probeOwed[sp] > 0
		b = c.appendCrypto(b, sp, end, &p)
		if sp == spaceApp && (probe || c.loss.canSend() && c.paced(now)) {
			b = c.appendAppFrames(b, end, &p)
		}
		if probe {
			c.probeOwed[sp]--
			if !p.ackEliciting {
				b = append(b, byte(FramePing))
				p.ackEliciting = true
			}
		}
	}
	if len(b) == payloadStart {
		c.recs.release(p.handle)
		return b[:pktStart]
	}
	for len(b)-pnOff < 4 {
		b = append(b, 0) // room for the header protection sample
	}
	for len(b)+Overhead < padTo && len(b) < end {
		b = append(b, 0)
	}
	if sp != spaceApp {
		PutVarintLen(b[pnOff-2:pnOff], uint64(len(b)-pnOff+Overhead))
	}
	if cap(b)-len(b) < Overhead {
		b = append(b, make([]byte, Overhead)...)[:len(b)]
	}
	pkt, err := s.write.Protect(b[pktStart:], pnOff-pktStart, pn)
	if err != nil {
		c.recs.release(p.handle)
		return b[:pktStart]
	}
	b = b[:pktStart+len(pkt)]
	s.nextPN++
	eliciting := p.ackEliciting && !closing
	marked := c.ecn.mark == ECNECT0
	if marked {
		c.ecn.onSent()
	}
	c.loss.onSent(sp, pn, now, len(pkt), eliciting, marked, p.handle)
	if !eliciting {
		c.recs.release(p.handle)
	}
	if sp == spaceApp {
		if c.keys.firstPN < 0 {
			c.keys.firstPN = int64(pn)
		}
		c.keys.sentInPhase++
		if c.keys.sentInPhase >= c.keyUpdateAfter() {
			c.UpdateKeys() // refused until allowed: tried again with the next packet
		}
	}
	return b
}

// keyUpdateAfter is how many packets the current 1-RTT keys protect
// before this end updates them: Config.KeyUpdateEvery, and in any case
// before three quarters of the suite's confidentiality limit (RFC 9001
// section 6.6).
func (c *Conn) keyUpdateAfter() uint64 {
	limit, _, ok := AEADLimits(c.keys.suite)
	if !ok {
		limit = 1 << 23
	}
	n := limit / 4 * 3
	if e := c.cfg.KeyUpdateEvery; e > 0 {
		n = min(n, e)
	}
	return n
}

// appendCrypto appends the space's CRYPTO frames that fit.
func (c *Conn) appendCrypto(b []byte, sp spaceID, end int, p *packetBuilder) []byte {
	cs := &c.spaces[sp].cryptoSend
	for {
		room := end - len(b) - (1 + 8 + 2)
		if room <= 0 {
			return b
		}
		off, n, _, ok := cs.chunk(room, 1<<62)
		if !ok || n == 0 {
			return b
		}
		b = AppendCryptoFrame(b, off, cs.bytes(off, n))
		cs.onSent(off, n, false)
		p.record(frameRec{kind: recCrypto, id: uint64(sp), off: off, n: uint32(n)})
	}
}

// appendAppFrames appends the 1-RTT control frames and stream data that
// fit before end.
func (c *Conn) appendAppFrames(b []byte, end int, p *packetBuilder) []byte {
	const most = 1 + 8 + 8 + 8
	if c.handshakeDoneOwed && end-len(b) > most {
		b = append(b, byte(FrameHandshakeDone))
		c.handshakeDoneOwed = false
		p.record(frameRec{kind: recHandshakeDone})
	}
	if c.pathResponseDue && end-len(b) > most {
		b = append(b, byte(FramePathResponse))
		b = append(b, c.pathResponse[:]...)
		c.pathResponseDue = false
		p.ackEliciting = true
	}
	if c.flow.maxDataOwed && end-len(b) > most {
		b = AppendFrame(b, &Frame{Type: FrameMaxData, Limit: c.flow.recvMax})
		c.flow.maxDataOwed = false
		p.record(frameRec{kind: recMaxData})
	}
	if c.flow.blockedOwed && end-len(b) > most {
		b = AppendFrame(b, &Frame{Type: FrameDataBlocked, Limit: c.flow.sendMax})
		c.flow.blockedOwed = false
		p.ackEliciting = true
	}
	for d := range 2 {
		if c.strms.limitOwed[d] && end-len(b) > most {
			b = AppendFrame(b, &Frame{Type: FrameMaxStreamsBidi + FrameType(d), Limit: c.strms.peerLimit[d]})
			c.strms.limitOwed[d] = false
			p.record(frameRec{kind: recMaxStreams, id: uint64(d)})
		}
		if c.strms.blocked[d] && end-len(b) > most {
			b = AppendFrame(b, &Frame{Type: FrameStreamsBlockedBidi + FrameType(d), Limit: c.strms.limit[d]})
			c.strms.blocked[d] = false
			p.ackEliciting = true
		}
	}
	b = c.appendConnIDFrames(b, end, p)
	return c.appendStreams(b, end, p)
}

// appendConnIDFrames appends the NEW_CONNECTION_ID and
// RETIRE_CONNECTION_ID frames owed.
func (c *Conn) appendConnIDFrames(b []byte, end int, p *packetBuilder) []byte {
	for i := range c.cids.local {
		l := &c.cids.local[i]
		if !l.owed || end-len(b) < 1+8+8+1+MaxConnIDLen+StatelessResetTokenLen {
			continue
		}
		b = AppendFrame(b, &Frame{Type: FrameNewConnectionID, SequenceNumber: l.seq, ConnID: l.id, ResetToken: l.token[:]})
		l.owed = false
		p.record(frameRec{kind: recNewConnID, id: l.seq})
	}
	for len(c.cids.retireOwed) > 0 && end-len(b) > 9 {
		n := len(c.cids.retireOwed) - 1
		seq := c.cids.retireOwed[n]
		c.cids.retireOwed = c.cids.retireOwed[:n]
		b = AppendFrame(b, &Frame{Type: FrameRetireConnectionID, SequenceNumber: seq})
		p.record(frameRec{kind: recRetireConnID, id: seq})
	}
	return b
}

// appendStreams appends the queued streams' frames, first queued first;
// streams left with nothing to send leave the queue.
func (c *Conn) appendStreams(b []byte, end int, p *packetBuilder) []byte {
	q := c.strms.sendq
	keep := q[:0]
	i := 0
	for ; i < len(q); i++ {
		s := q[i]
		if end-len(b) < 32 {
			break
		}
		b = s.appendControl(b, end-len(b), p)
		for end-len(b) >= 32 {
			n := len(b)
			var fresh uint64
			b, fresh = s.appendData(b, end-len(b), c.flow.credit(), p)
			c.flow.sent += fresh
			if len(b) == n {
				break
			}
		}
		if s.sendWork(0) || s.ownWork() && c.flow.credit() == 0 {
			if c.flow.credit() == 0 && s.send.next < s.send.end() {
				c.flow.noteBlocked()
			}
		}
		if s.ownWork() {
			keep = append(keep, s)
		} else {
			s.queued = false
		}
	}
	keep = append(keep, q[i:]...)
	clear(q[len(keep):])
	c.strms.sendq = keep
	return b
}
