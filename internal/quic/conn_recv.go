package quic

import (
	"bytes"
	"time"
)

// Receive processes one UDP datagram from the peer: its coalesced
// packets are unprotected and decrypted in place (the datagram's bytes
// are overwritten) and their frames applied. A packet that cannot be
// decrypted is dropped, as RFC 9000 asks; a protocol violation closes the
// connection. Events and datagrams to send follow.
func (c *Conn) Receive(datagram []byte, now time.Time) {
	c.ReceiveECN(datagram, ECNNotECT, now)
}

// ReceiveECN is Receive for a datagram that arrived with the ECN
// codepoint mark (with Config.ECN: its packets are counted by their mark
// in this end's ACK frames).
func (c *Conn) ReceiveECN(datagram []byte, mark ECN, now time.Time) {
	switch c.state {
	case stateClosed, stateDraining:
		return
	case stateClosing:
		c.closeOwed = true
		return
	}
	if !c.addrValidated {
		c.bytesRecv += uint64(len(datagram))
		c.loss.r.SetAmplificationBlocked(false)
	}
	whole := datagram
	for len(datagram) > 0 && c.state < stateClosing {
		pkt, rest, err := NextPacket(datagram)
		if err != nil {
			return
		}
		datagram = rest
		if err := c.receivePacket(pkt, whole, mark, now); err != nil {
			c.fail(err, now)
			return
		}
	}
}

// receivePacket processes one packet of a datagram that came with the ECN
// codepoint mark.
func (c *Conn) receivePacket(pkt, datagram []byte, mark ECN, now time.Time) error {
	var sp spaceID
	var payload []byte
	var pn uint64
	var dcid []byte
	if IsLongHeader(pkt[0]) {
		h, err := ParseLongHeader(pkt)
		if err != nil {
			return nil
		}
		switch h.Type {
		case PacketVersionNegotiation:
			c.onVersionNegotiation(pkt)
			return nil
		case PacketRetry:
			c.onRetry(pkt, &h)
			return nil
		case PacketInitial:
			sp = spaceInitial
		case PacketHandshake:
			sp = spaceHandshake
		default:
			return nil // 0-RTT is not taken; other versions are the listener's
		}
		if c.receivedAny && !bytes.Equal(h.SrcConnID, c.cids.peerInitialSCID) {
			return nil
		}
		s := c.spaces[sp]
		if s.read == nil {
			return nil
		}
		if pn, payload, err = s.read.Unprotect(pkt, h.PNOffset, s.largestRecv); err != nil {
			return nil
		}
		if !c.receivedAny {
			c.cids.setPeerFirst(h.SrcConnID)
		}
		dcid = h.DstConnID
	} else {
		s := c.spaces[spaceApp]
		if s.read == nil || !c.handshakeComplete && c.isClient {
			return nil
		}
		h, err := ParseShortHeader(pkt, len(c.cids.scid()))
		if err != nil {
			return nil
		}
		sp, dcid = spaceApp, h.DstConnID
		pn, payload, err = c.open1RTT(pkt, h.PNOffset)
		if err != nil {
			if c.cids.isStatelessReset(datagram) {
				c.drain(ErrStatelessReset, now)
			}
			return nil
		}
	}
	if ReservedBitsSet(pkt[0]) {
		return &TransportError{Code: ProtocolViolation, Reason: "reserved header bits set"}
	}
	s := c.spaces[sp]
	if s.recv.Contains(pn) {
		return nil
	}
	c.receivedAny = true
	c.opened++
	s.countReceived(mark)
	if sp == spaceHandshake && !c.isClient && !c.addrValidated {
		c.addrValidated = true // RFC 9000 section 8.1
		c.loss.r.SetAmplificationBlocked(false)
	}
	if sp == spaceHandshake && !c.isClient {
		c.dropSpace(spaceInitial)
	}
	eliciting, err := c.handleFrames(sp, payload, dcid, now)
	if err != nil {
		return err
	}
	if s.dropped {
		return nil
	}
	outOfOrder := s.largestRecv >= 0 && int64(pn) != s.largestRecv+1
	s.recv.Add(pn)
	if int64(pn) > s.largestRecv {
		s.largestRecv, s.largestRecvTime = int64(pn), now
	}
	s.ackNew = true
	if eliciting {
		s.ackEliciting++
		switch {
		case sp != spaceApp || s.ackEliciting >= 2 || outOfOrder:
			s.ackDeadline = now
		case s.ackDeadline.IsZero():
			s.ackDeadline = now.Add(maxAckDelay)
		}
	}
	c.touchIdle(now)
	return nil
}

// open1RTT removes the protection of a short header packet, with the keys
// of its key phase: the current ones, the next ones (the peer updated its
// keys: this end follows), or the previous ones for a late packet.
func (c *Conn) open1RTT(pkt []byte, pnOffset int) (uint64, []byte, error) {
	s := c.spaces[spaceApp]
	pn, hdrLen, err := s.read.UnprotectHeader(pkt, pnOffset, s.largestRecv)
	if err != nil {
		return 0, nil, err
	}
	if KeyPhase(pkt[0]) == c.keys.phase {
		payload, err := s.read.Open(pkt, hdrLen, pn)
		return pn, payload, err
	}
	if c.keys.prev != nil && int64(pn) < s.largestRecv {
		payload, err := c.keys.prev.Open(pkt, hdrLen, pn)
		return pn, payload, err
	}
	payload, err := c.keys.next.Open(pkt, hdrLen, pn)
	if err != nil {
		return 0, nil, err
	}
	if !c.handshakeConfirmed {
		return 0, nil, &TransportError{Code: KeyUpdateError, Reason: "key update before the handshake was confirmed"}
	}
	if err := c.rotateKeys(); err != nil {
		return 0, nil, err
	}
	return pn, payload, nil
}

// onVersionNegotiation fails a client whose server lacks version 1 (RFC
// 9000 section 6.2); a list that has it, or a late one, is ignored.
func (c *Conn) onVersionNegotiation(pkt []byte) {
	if !c.isClient || c.receivedAny || c.retried {
		return
	}
	vn, err := ParseVersionNegotiation(pkt)
	if err != nil || !bytes.Equal(vn.DstConnID, c.cids.scid()) || !bytes.Equal(vn.SrcConnID, c.cids.dcid()) {
		return
	}
	for i := range vn.Len() {
		if vn.Version(i) == Version1 {
			return
		}
	}
	c.state = stateClosed
	c.err = ErrVersionNegotiation
	c.event(EventConnClosed, 0)
	c.events[len(c.events)-1].Err = ErrVersionNegotiation
	c.tls.Close()
}

// onRetry takes a Retry (RFC 9000 section 17.2.5): once, before any other
// packet, with a valid integrity tag; the first flight goes again to the
// new Destination Connection ID, with the token, under new Initial keys.
func (c *Conn) onRetry(pkt []byte, h *LongHeader) {
	if !c.isClient || c.retried || c.receivedAny || len(h.Token) == 0 {
		return
	}
	if !bytes.Equal(h.DstConnID, c.cids.scid()) || !ValidRetry(pkt, c.cids.odcid) {
		return
	}
	scid := append([]byte(nil), h.SrcConnID...)
	if err := c.setInitialKeys(scid); err != nil {
		return
	}
	c.retried = true
	c.token = append([]byte(nil), h.Token...)
	c.cids.retrySCID = scid
	c.cids.remote[0].id = scid
	c.spaces[spaceInitial].cryptoSend.restart()
}

// handleFrames applies a packet's frames and reports whether it was
// ack-eliciting.
func (c *Conn) handleFrames(sp spaceID, payload, dcid []byte, now time.Time) (bool, error) {
	if len(payload) == 0 {
		return false, &TransportError{Code: ProtocolViolation, Reason: "packet without frames"}
	}
	pt := [numSpaces]PacketType{PacketInitial, PacketHandshake, Packet1RTT}[sp]
	eliciting := false
	for len(payload) > 0 {
		f, n, err := ParseFrame(payload)
		if err != nil {
			return false, err
		}
		payload = payload[n:]
		if !f.Type.AllowedIn(pt) {
			return false, &TransportError{Code: ProtocolViolation, Reason: "frame not allowed in its packet type"}
		}
		eliciting = eliciting || f.Type.AckEliciting()
		if err := c.handleFrame(sp, &f, dcid, now); err != nil {
			return false, err
		}
		if c.state >= stateDraining || c.spaces[sp].dropped {
			break
		}
	}
	return eliciting, nil
}
