package quic

import (
	"crypto/tls"
	"time"
)

// idleReleaseAfter is how long a connection hears nothing before it lets
// go of what only a busy connection needs (releaseIdle): long enough that
// a connection in use never pays for making it all again.
const idleReleaseAfter = time.Second

// releaseAfter returns when a connection that last heard from its peer at
// now releases its working state: idleReleaseAfter later, or three probe
// timeouts if longer, past when a late packet of the previous key phase
// may still arrive.
func (c *Conn) releaseAfter(now time.Time) time.Time {
	return now.Add(max(idleReleaseAfter, 3*c.loss.pto(c.peerMaxAckDelay())))
}

// releaseIdle lets go of what a quiet connection can make again when its
// next packet comes or goes: the 1-RTT cipher objects (their key bytes
// stay, so key updates go on), the read keys of the previous key phase,
// the buffers of streams with nothing in them and of streams done with,
// the frame records of packets no longer in flight, the sent packet ring
// beyond what it holds, the ACK ranges' spare room and the event queue.
func (c *Conn) releaseIdle() {
	sp := c.spaces[spaceApp]
	sp.read.release()
	sp.write.release()
	c.keys.next.release()
	c.keys.prev = nil
	sp.recv.shrink()
	sp.cryptoSend.releaseIdle()
	sp.cryptoRecv.releaseIdle()
	c.strms.releaseIdle()
	c.recs.releaseIdle()
	c.loss.r.spaces[spaceApp].sent.shrink()
	if c.eventHead == len(c.events) {
		c.events, c.eventHead = nil, 0
	}
}

// releaseIdle drops the streams kept for reuse, the send queue's room if
// it is empty, the map's room if no stream is open, and the buffers of
// open streams that hold nothing.
func (ss *streamSet) releaseIdle() {
	clear(ss.free)
	ss.free = nil
	if len(ss.sendq) == 0 {
		ss.sendq = nil
	}
	if len(ss.m) == 0 {
		ss.m = make(map[uint64]*stream)
	}
	for _, s := range ss.m {
		s.send.releaseIdle()
		s.recv.releaseIdle()
	}
}

// releaseIdle drops the buffer and span sets of a send half that holds
// no byte unacknowledged.
func (s *sendBuf) releaseIdle() {
	if s.buffered() == 0 {
		s.buf, s.start = nil, 0
	}
	if len(s.acked) == 0 {
		s.acked = nil
	}
	if len(s.lost) == 0 {
		s.lost = nil
	}
}

// releaseIdle drops the buffer and span set of a receive half that holds
// no byte.
func (r *recvBuf) releaseIdle() {
	if len(r.buf) == 0 {
		r.buf = nil
	}
	if len(r.have) == 0 {
		r.have = nil
	}
	if len(r.later) == 0 {
		r.later = nil
	}
}

// releaseIdle drops the frame slices of the free handles, and every
// handle when none is in use.
func (p *packetRecs) releaseIdle() {
	if len(p.free) == len(p.frames) {
		p.frames, p.space, p.free = nil, nil, nil
		return
	}
	for _, h := range p.free {
		p.frames[h] = nil
	}
}

// shrink moves the entries to the smallest ring that holds them, none
// when the list is empty.
func (l *sentList) shrink() {
	size := 1
	for size < l.n {
		size *= 2
	}
	if l.n == 0 {
		l.ring, l.head = nil, 0
		return
	}
	if size >= len(l.ring) {
		return
	}
	ring := make([]sentEntry, size)
	for i := range l.n {
		ring[i] = *l.at(i)
	}
	l.ring, l.head = ring, 0
}

// peerLimits is what a connection keeps of its peer's transport
// parameters once they are applied (RFC 9000 section 18.2), in their
// units on the wire.
type peerLimits struct {
	maxAckDelay       uint32 // milliseconds, under 2^14 (the transport parameters' bound)
	ackDelayExponent  uint32 // at most 20
	activeConnIDLimit uint64
	maxUDPPayloadSize uint64
}

// Quiet reports whether the connection has heard nothing from its peer
// for a while and has let go of its working state, until the next packet
// arrives: the time for the application to let go of its own.
func (c *Conn) Quiet() bool {
	return c.state == stateActive && c.handshakeComplete && c.releaseAt.IsZero()
}

// TLSState returns the TLS state, as ConnectionState does, as a pointer
// that a server's connection shares once its handshake is done (every
// call the same one; the caller must not modify it): the state each
// request of a connection reports need not be copied per connection
// again.
func (c *Conn) TLSState() *tls.ConnectionState {
	if c.tls == nil {
		return c.tlsState
	}
	cs := c.tls.ConnectionState()
	return &cs
}
