package quic

// recKind names what a frame sent in a packet was, for what must happen
// when the packet is acknowledged or lost.
type recKind uint8

const (
	recStream recKind = iota
	recCrypto         // id: the space
	recMaxData
	recMaxStreamData
	recMaxStreams // id: 0 bidi, 1 uni
	recReset
	recStopSending
	recHandshakeDone
	recNewConnID    // id: the sequence number
	recRetireConnID // id: the sequence number
)

// frameRec is one frame a packet carried: enough to resend it or to
// release what it carried.
type frameRec struct {
	kind recKind
	fin  bool
	n    uint32
	id   uint64
	off  uint64
}

// packetRecs holds, per packet in flight, the frames it carried, under a
// uint32 handle. Handles and their frame slices are reused, so steady
// sending allocates nothing.
type packetRecs struct {
	frames [][]frameRec
	space  []int8 // the space of a handle in use, -1 when free
	free   []uint32
}

// get returns a free handle with no frames, for a packet of space sp.
func (p *packetRecs) get(sp spaceID) uint32 {
	if n := len(p.free); n > 0 {
		h := p.free[n-1]
		p.free = p.free[:n-1]
		p.space[h] = int8(sp)
		return h
	}
	p.frames = append(p.frames, make([]frameRec, 0, 8))
	p.space = append(p.space, int8(sp))
	return uint32(len(p.frames) - 1)
}

// release gives h back.
func (p *packetRecs) release(h uint32) {
	if p.space[h] < 0 {
		return
	}
	p.frames[h] = p.frames[h][:0]
	p.space[h] = -1
	p.free = append(p.free, h)
}

// releaseSpace gives back every handle of space sp: its keys are gone.
func (p *packetRecs) releaseSpace(sp spaceID) {
	for h := range p.space {
		if p.space[h] == int8(sp) {
			p.release(uint32(h))
		}
	}
}

// packetBuilder gathers what goes into one packet being built.
type packetBuilder struct {
	recs         *packetRecs
	handle       uint32
	ackEliciting bool
}

// record notes a frame that must be resent if the packet is lost.
func (p *packetBuilder) record(f frameRec) {
	p.recs.frames[p.handle] = append(p.recs.frames[p.handle], f)
	p.ackEliciting = true
}

// onPacketAcked releases what an acknowledged packet carried.
func (c *Conn) onPacketAcked(sp spaceID, pn uint64, h uint32) {
	for _, f := range c.recs.frames[h] {
		switch f.kind {
		case recStream:
			s := c.strms.m[f.id]
			if s == nil {
				continue
			}
			s.send.onAcked(f.off, int(f.n), f.fin)
			if s.wantWrite && s.send.buffered() < c.cfg.MaxSendBuffer/2 {
				s.wantWrite = false
				c.event(EventStreamWritable, s.id)
			}
			c.strms.maybeDone(s)
		case recCrypto:
			if cs := c.spaces[f.id]; !cs.dropped {
				cs.cryptoSend.onAcked(f.off, int(f.n), false)
				if cs.cryptoSend.buffered() == 0 {
					// TLS writes here a few times in a connection's life (a
					// session ticket): hold no buffer between.
					cs.cryptoSend.buf, cs.cryptoSend.start = nil, 0
				}
			}
		case recReset:
			if s := c.strms.m[f.id]; s != nil {
				s.resetAcked = true
				c.strms.maybeDone(s)
			}
		}
	}
	if sp == spaceApp && c.keys.firstPN >= 0 && int64(pn) >= c.keys.firstPN {
		c.keys.confirmed = true
	}
	c.recs.release(h)
}

// onPacketLost queues again what a lost packet carried and still matters.
func (c *Conn) onPacketLost(sp spaceID, h uint32) {
	for _, f := range c.recs.frames[h] {
		s := c.strms.m[f.id]
		switch f.kind {
		case recStream:
			if s != nil && !s.resetSent && !s.resetOwed {
				s.send.onLost(f.off, int(f.n), f.fin)
				c.strms.queue(s)
			}
		case recCrypto:
			if cs := c.spaces[f.id]; !cs.dropped {
				cs.cryptoSend.onLost(f.off, int(f.n), false)
			}
		case recMaxData:
			c.flow.maxDataOwed = true
		case recMaxStreamData:
			if s != nil && !s.recv.hasFinal {
				s.maxDataOwed = true
				c.strms.queue(s)
			}
		case recMaxStreams:
			c.strms.limitOwed[f.id] = true
		case recReset:
			if s != nil && !s.resetAcked {
				s.resetOwed = true
				c.strms.queue(s)
			}
		case recStopSending:
			if s != nil && !s.recvDone() {
				s.stopOwed = true
				c.strms.queue(s)
			}
		case recHandshakeDone:
			c.handshakeDoneOwed = true
		case recNewConnID:
			for i := range c.cids.local {
				if c.cids.local[i].seq == f.id {
					c.cids.local[i].owed = true
				}
			}
		case recRetireConnID:
			c.cids.retireOwed = append(c.cids.retireOwed, f.id)
		}
	}
	c.recs.release(h)
}
