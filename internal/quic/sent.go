package quic

import "time"

// Space is a packet number space (RFC 9000 section 12.3): each has its own
// packet numbers, acknowledgments and loss detection.
type Space uint8

// The three packet number spaces; 0-RTT and 1-RTT packets share SpaceApp.
const (
	SpaceInitial Space = iota
	SpaceHandshake
	SpaceApp
	spaceCount
)

// String returns the space's name.
func (s Space) String() string {
	switch s {
	case SpaceInitial:
		return "Initial"
	case SpaceHandshake:
		return "Handshake"
	case SpaceApp:
		return "ApplicationData"
	}
	return "Space(?)"
}

// SentPacket is what loss detection keeps of a packet sent: its number,
// when it was sent, its size in bytes, whether it elicits an ACK and
// counts towards bytes in flight, whether it went out marked ECT(0), and
// Frames, a handle of the caller's own with which it finds what the
// packet carried when it is acknowledged or lost.
type SentPacket struct {
	Number       uint64
	Time         time.Time
	Size         int
	AckEliciting bool
	InFlight     bool
	ECT          bool
	Frames       uint32
}

// The states of a packet in a sentList: outstanding until acknowledged or
// declared lost; acknowledged packets wait in ackPending while one ACK is
// processed, so that losses are found before the acknowledgments are
// counted (RFC 9002 appendix A.7).
const (
	sentOutstanding uint8 = iota
	sentAckPending
	sentAcked
	sentLost
)

// sentEntry is a SentPacket and its state. Acknowledged and lost packets
// stay as tombstones until every older one is gone too, so that a number
// between the oldest and newest kept is known to have been sent or not.
type sentEntry struct {
	p     SentPacket
	state uint8
}

// sentListMin is the capacity a sentList starts with.
const sentListMin = 16

// maxSentPackets bounds a sentList: past it the oldest packets that are
// not in flight (ACK-only ones, which a peer need never acknowledge) are
// forgotten without a callback.
const maxSentPackets = 1 << 14

// sentList holds one space's sent packets in a ring, in increasing packet
// number order (numbers may skip). It grows by doubling and never shrinks,
// so in steady state adding and removing packets allocates nothing.
type sentList struct {
	ring []sentEntry // len is a power of two
	head int         // index of the oldest entry
	n    int
}

// len returns the number of entries, tombstones included.
func (l *sentList) len() int { return l.n }

// at returns the i-th oldest entry.
func (l *sentList) at(i int) *sentEntry {
	return &l.ring[(l.head+i)&(len(l.ring)-1)]
}

// push appends p, which must be numbered above every packet held.
func (l *sentList) push(p SentPacket) {
	if l.n == len(l.ring) {
		l.grow()
	}
	*l.at(l.n) = sentEntry{p: p}
	l.n++
}

// grow doubles the ring, sentListMin at first.
func (l *sentList) grow() {
	ring := make([]sentEntry, max(2*len(l.ring), sentListMin))
	for i := range l.n {
		ring[i] = *l.at(i)
	}
	l.ring, l.head = ring, 0
}

// popDone drops the tombstones at the front.
func (l *sentList) popDone() {
	for l.n > 0 {
		e := l.at(0)
		if e.state != sentAcked && e.state != sentLost {
			return
		}
		l.popFront()
	}
}

// popFront drops the oldest entry.
func (l *sentList) popFront() {
	l.head = (l.head + 1) & (len(l.ring) - 1)
	l.n--
}

// search returns the index of the first entry numbered pn or above, or
// len() if none is.
func (l *sentList) search(pn uint64) int {
	lo, hi := 0, l.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.at(m).p.Number < pn {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// clear drops every entry, keeping the ring.
func (l *sentList) clear() {
	l.head, l.n = 0, 0
}

// trim forgets the oldest entries not in flight while the list is over
// maxSentPackets, and the tombstones this uncovers.
func (l *sentList) trim() {
	for l.n > maxSentPackets {
		e := l.at(0)
		if e.state == sentOutstanding && e.p.InFlight {
			return
		}
		l.popFront()
		l.popDone()
	}
}

// span returns the indexes [i, j) of the entries numbered lo to hi.
func (l *sentList) span(lo, hi uint64) (i, j int) {
	i = l.search(lo)
	if hi == 1<<64-1 {
		return i, l.n
	}
	return i, l.search(hi + 1)
}
