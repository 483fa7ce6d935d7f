package quic

import "time"

// handleFrame applies one frame of space sp.
func (c *Conn) handleFrame(sp spaceID, f *Frame, dcid []byte, now time.Time) error {
	switch f.Type {
	case FramePadding, FramePing:
	case FrameAck, FrameAckECN:
		if err := c.loss.onAck(c, sp, f, now); err != nil {
			return err
		}
		s := c.spaces[sp]
		largest := int64(f.LargestAcked) > s.largestAcked
		if largest {
			s.largestAcked = int64(f.LargestAcked)
		}
		c.onAckECN(sp, f, largest, now)
	case FrameCrypto:
		return c.onCrypto(sp, f, now)
	case FrameStream:
		return c.onStream(f)
	case FrameResetStream:
		s, err := c.strms.peerStream(f.StreamID, false)
		if s == nil || err != nil {
			return err
		}
		grow, freed, err := s.onReset(f.Code, f.FinalSize)
		if err != nil {
			return err
		}
		if err := c.flow.onReceive(grow); err != nil {
			return err
		}
		c.flow.onConsumed(freed)
		c.strms.readable(s)
	case FrameStopSending:
		s, err := c.strms.peerStream(f.StreamID, true)
		if s == nil || err != nil {
			return err
		}
		if !s.peerStopped {
			s.peerStopped, s.peerStop = true, f.Code
			c.resetSend(s, f.Code)
			c.event(EventStreamWritable, s.id)
		}
	case FrameMaxData:
		c.flow.onMaxData(f.Limit)
	case FrameMaxStreamData:
		s, err := c.strms.peerStream(f.StreamID, true)
		if s == nil || err != nil {
			return err
		}
		if f.Limit > s.sendMax {
			s.sendMax = f.Limit
			c.strms.queue(s)
		}
	case FrameMaxStreamsBidi, FrameMaxStreamsUni:
		d := int(f.Type - FrameMaxStreamsBidi)
		c.strms.limit[d] = max(c.strms.limit[d], f.Limit)
	case FrameDataBlocked, FrameStreamsBlockedBidi, FrameStreamsBlockedUni:
	case FrameStreamDataBlocked:
		_, err := c.strms.peerStream(f.StreamID, false)
		return err
	case FrameNewToken:
		if !c.isClient {
			return &TransportError{Code: ProtocolViolation, Reason: "NEW_TOKEN from a client"}
		}
	case FrameNewConnectionID:
		return c.cids.onNewConnectionID(c, f)
	case FrameRetireConnectionID:
		return c.cids.onRetireConnectionID(c, f.SequenceNumber, dcid)
	case FramePathChallenge:
		copy(c.pathResponse[:], f.Data)
		c.pathResponseDue = true
	case FramePathResponse:
	case FrameConnectionClose, FrameConnectionCloseApp:
		c.drain(&CloseError{Remote: true, Application: f.Type == FrameConnectionCloseApp,
			Code: f.Code, Reason: string(f.Data)}, now)
	case FrameHandshakeDone:
		if !c.isClient {
			return &TransportError{Code: ProtocolViolation, Reason: "HANDSHAKE_DONE from a client"}
		}
		c.confirmHandshake(now)
	}
	return nil
}

// onCrypto puts CRYPTO data in place and hands TLS what is contiguous.
func (c *Conn) onCrypto(sp spaceID, f *Frame, now time.Time) error {
	r := &c.spaces[sp].cryptoRecv
	if f.Offset+uint64(len(f.Data)) > r.readOff+maxCryptoBuffer {
		return &TransportError{Code: CryptoBufferExceeded, Reason: "CRYPTO data too far ahead"}
	}
	if c.tls == nil {
		return nil // a server's TLS is done (releaseTLS): nothing more is owed to it
	}
	if err := r.push(f.Offset, f.Data); err != nil {
		return err
	}
	data := r.peek()
	if len(data) == 0 {
		return nil
	}
	if err := c.tls.HandleData(sp.level(), data); err != nil {
		return cryptoError(err)
	}
	r.discard(len(data))
	if err := c.handleTLSEvents(now); err != nil {
		return cryptoError(err)
	}
	return nil
}

// onStream takes a STREAM frame.
func (c *Conn) onStream(f *Frame) error {
	s, err := c.strms.peerStream(f.StreamID, false)
	if s == nil || err != nil {
		return err
	}
	grow, err := s.onData(f.Offset, f.Data, f.Fin)
	if err != nil {
		return err
	}
	if err := c.flow.onReceive(grow); err != nil {
		return err
	}
	if s.recv.readable() > 0 || (s.recv.finished() && !s.finRead) {
		c.strms.readable(s)
	}
	return nil
}
