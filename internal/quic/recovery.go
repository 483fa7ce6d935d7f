package quic

import "time"

// The loss detection constants of RFC 9002 section 6 not in rtt.go.
const (
	// ptoProbes is how many ack-eliciting packets a PTO sends.
	ptoProbes = 2
	// maxPTOBackoff bounds the PTO's exponent, so the shift cannot overflow.
	maxPTOBackoff = 16
)

// errAckUnsent is the PROTOCOL_VIOLATION of an ACK acknowledging a packet
// number never sent (RFC 9000 section 13.1).
var errAckUnsent = &TransportError{Code: ProtocolViolation, Reason: "ACK of a packet never sent"}

// LossHandler hears of the packets loss detection resolves, each once: it
// finds what the packet carried by p.Frames. The pointer is valid only
// during the call.
type LossHandler interface {
	// Acked is called for each packet newly acknowledged.
	Acked(space Space, p *SentPacket)
	// Lost is called for each packet declared lost: its frames are to be
	// sent again if still needed.
	Lost(space Space, p *SentPacket)
}

// RecoveryStats counts what loss detection has seen; a load report shows
// them.
type RecoveryStats struct {
	PacketsSent      uint64
	PacketsLost      uint64
	BytesLost        uint64
	CongestionEvents uint64 // window reductions, one per recovery period
	PTOs             uint64 // PTO expirations, anti-deadlock ones included
	Persistent       uint64 // persistent congestion collapses
}

// spaceRecovery is one packet number space's loss detection state.
type spaceRecovery struct {
	sent              sentList
	largestAcked      uint64
	hasAcked          bool
	largestSent       uint64
	hasSent           bool
	lossTime          time.Time // when the earliest packet not yet lost will be, zero if none
	lastAckEliciting  time.Time // time_of_last_ack_eliciting_packet
	elicitingInFlight int
	ecnCE             uint64
	largestAckedSent  time.Time // send time of the last ACK's largest acknowledged packet
	discarded         bool
}

// Recovery is a connection's loss detection and congestion control, RFC
// 9002 appendix A driving the NewReno of appendix B, sans-I/O: the engine
// tells it of packets sent and ACKs received, asks it when its timer
// fires (LossTimeout) and calls OnLossTimeout then; acknowledged and lost
// packets come back through a LossHandler. It reads no clock. The zero
// value is not ready: call Init; once it has run, a Recovery points into
// itself and must not be copied. Not safe for concurrent use.
type Recovery struct {
	// RTT is the path's round-trip estimate, updated by each ACK.
	RTT RTT
	// CC is the congestion controller; CC.CanSend(BytesInFlight()) says
	// whether a packet may be sent.
	CC NewReno
	// Pacer spaces packets over the round trip; its rate follows CC and
	// RTT. The engine asks NextSendTime.
	Pacer Pacer
	// MaxAckDelay is the peer's max_ack_delay transport parameter: 25 ms
	// until the engine sets it from the peer's transport parameters.
	MaxAckDelay time.Duration

	// spaces are the spaces' states: app and, until both are
	// discarded, long's two; then those point at discardedRecovery.
	spaces        [spaceCount]*spaceRecovery
	app           spaceRecovery
	long          *[2]spaceRecovery
	server        bool
	confirmed     bool // handshake confirmed
	peerValidated bool // the client's address is validated by the server
	ampBlocked    bool // a server at its anti-amplification limit
	bytesInFlight int
	ptoCount      int
	firstSample   time.Time // when the first RTT sample was taken
	lastEvent     time.Time // now of the latest call that set the timer
	handshakeKeys bool
	stats         RecoveryStats
	pacerWindow   int
	pacerSmoothed time.Duration
}

// Init readies r for a server or a client connection sending datagrams of
// up to maxDatagramSize bytes (DefaultMaxDatagramSize if 0), its sent
// packet rings preallocated.
func (r *Recovery) Init(server bool, maxDatagramSize int) {
	var rings [spaceCount][]sentEntry
	for i, s := range r.spaces {
		if s != nil && s != &discardedRecovery {
			rings[i] = s.sent.ring
		}
	}
	*r = Recovery{server: server, MaxAckDelay: 25 * time.Millisecond}
	r.long = new([2]spaceRecovery)
	r.spaces = [spaceCount]*spaceRecovery{&r.long[0], &r.long[1], &r.app}
	for i, s := range r.spaces {
		s.sent.ring = rings[i]
		s.sent.clear()
		if len(s.sent.ring) == 0 {
			s.sent.grow()
		}
	}
	r.CC.Init(maxDatagramSize)
	r.Pacer.SetBurst(r.CC.InitialWindow())
	r.updatePacer()
}

// SetMaxDatagramSize changes the maximum datagram size (path MTU
// discovery, the peer's max_udp_payload_size): the congestion window's
// bounds and the pacer's burst follow it.
func (r *Recovery) SetMaxDatagramSize(n int) {
	r.CC.SetMaxDatagramSize(n)
	r.Pacer.SetBurst(r.CC.InitialWindow())
	r.updatePacer()
}

// BytesInFlight returns the bytes of packets in flight: sent, counted in
// flight, neither acknowledged, declared lost nor discarded.
func (r *Recovery) BytesInFlight() int { return r.bytesInFlight }

// CanSend reports whether the congestion window has room for a datagram
// of the maximum size; PTO probes are sent regardless.
func (r *Recovery) CanSend() bool { return r.CC.CanSend(r.bytesInFlight) }

// PTOCount returns how many PTOs have expired since the last ACK that
// reset the backoff.
func (r *Recovery) PTOCount() int { return r.ptoCount }

// Stats returns the counters.
func (r *Recovery) Stats() RecoveryStats { return r.stats }

// SetHandshakeConfirmed records the handshake confirmed (RFC 9001 section
// 4.1.2): ACK delays are capped at MaxAckDelay, the application space's
// PTO is armed, and the peer has validated this endpoint's address.
func (r *Recovery) SetHandshakeConfirmed() {
	r.confirmed, r.peerValidated = true, true
}

// SetPeerAddressValidated records, on a client, that the server has
// validated its address (a Handshake packet was acknowledged); until
// then a client with nothing in flight keeps a PTO armed so the
// handshake cannot deadlock on the server's amplification limit.
// A Handshake ACK sets it too.
func (r *Recovery) SetPeerAddressValidated() { r.peerValidated = true }

// SetAmplificationBlocked records whether a server may send nothing more
// until it hears from the client (RFC 9000 section 8.1): while it is
// blocked no PTO is armed, as no probe could be sent.
func (r *Recovery) SetAmplificationBlocked(blocked bool) { r.ampBlocked = blocked }

// peerCompletedAddressValidation is appendix A.6's
// PeerCompletedAddressValidation: a server assumes it of itself.
func (r *Recovery) peerCompletedAddressValidation() bool {
	return r.server || r.peerValidated || r.confirmed
}

// OnPacketSent records a packet sent in space at p.Time (appendix A.5).
// Packet numbers must increase within a space: a packet numbered at or
// below the last one sent, or sent in a discarded space, is ignored.
// Packets that are neither ack-eliciting nor in flight are kept too, so
// that an ACK of a packet never sent can be told apart, but beyond a bound
// the oldest of them are forgotten without a callback: give them no Frames
// to free.
func (r *Recovery) OnPacketSent(space Space, p SentPacket) {
	s := r.spaces[space]
	if s.discarded || (s.hasSent && p.Number <= s.largestSent) {
		return
	}
	s.largestSent, s.hasSent = p.Number, true
	s.sent.push(p)
	s.sent.trim()
	r.stats.PacketsSent++
	r.lastEvent = p.Time
	if space == SpaceHandshake {
		r.handshakeKeys = true
	}
	if p.InFlight {
		if p.AckEliciting {
			s.lastAckEliciting = p.Time
			s.elicitingInFlight++
		}
		r.bytesInFlight += p.Size
		r.CC.OnPacketSent(r.bytesInFlight)
		r.Pacer.OnSent(p.Time, p.Size)
	}
}

// NextSendTime returns when a packet of size bytes may leave, as the
// pacer allows.
func (r *Recovery) NextSendTime(now time.Time, size int) time.Time {
	return r.Pacer.NextSendTime(now, size)
}

// updatePacer sets the pacer's rate from the window and smoothed RTT when
// either changed.
func (r *Recovery) updatePacer() {
	w, srtt := r.CC.Window(), r.RTT.SmoothedRTT()
	if w != r.pacerWindow || srtt != r.pacerSmoothed {
		r.pacerWindow, r.pacerSmoothed = w, srtt
		r.Pacer.SetRate(w, srtt)
	}
}

// DiscardSpace forgets space's packets when its keys are dropped
// (appendix A.11): their bytes leave the bytes in flight, neither
// acknowledged nor lost (the engine frees their Frames itself), and the
// PTO backoff restarts. Later packets and ACKs of the space are ignored.
// A client discards Initial when it first sends a Handshake packet: from
// either, its anti-deadlock probe is a Handshake packet.
func (r *Recovery) DiscardSpace(space Space) {
	s := r.spaces[space]
	if s.discarded {
		return
	}
	for i := range s.sent.len() {
		e := s.sent.at(i)
		if e.state == sentOutstanding && e.p.InFlight {
			r.bytesInFlight -= e.p.Size
		}
	}
	s.sent = sentList{} // its ring too: a discarded space sends nothing again
	s.discarded = true
	s.elicitingInFlight = 0
	s.lastAckEliciting = time.Time{}
	s.lossTime = time.Time{}
	r.ptoCount = 0
	if space == SpaceInitial {
		r.handshakeKeys = true
	}
	if r.long != nil && r.long[0].discarded && r.long[1].discarded {
		r.spaces[SpaceInitial], r.spaces[SpaceHandshake], r.long = &discardedRecovery, &discardedRecovery, nil
	}
}

// discardedRecovery is what the long header spaces' states become once
// both are discarded: read by every such Recovery, written by none
// (every method that would write returns first for a discarded space).
var discardedRecovery = spaceRecovery{discarded: true}

// ackElicitingInFlight reports whether any space has an ack-eliciting
// packet in flight.
func (r *Recovery) ackElicitingInFlight() bool {
	for i := range r.spaces {
		if r.spaces[i].elicitingInFlight > 0 {
			return true
		}
	}
	return false
}

// lossTimeAndSpace is appendix A.8's GetLossTimeAndSpace: the earliest
// loss time of any space, zero if none.
func (r *Recovery) lossTimeAndSpace() (time.Time, Space) {
	var t time.Time
	space := SpaceInitial
	for i := range r.spaces {
		lt := r.spaces[i].lossTime
		if !lt.IsZero() && (t.IsZero() || lt.Before(t)) {
			t, space = lt, Space(i)
		}
	}
	return t, space
}

// ptoBackoff returns d doubled once per PTO count.
func (r *Recovery) ptoBackoff(d time.Duration) time.Duration {
	return d << min(r.ptoCount, maxPTOBackoff)
}

// ptoTimeAndSpace is appendix A.8's GetPtoTimeAndSpace; zero if no PTO
// is to be armed.
func (r *Recovery) ptoTimeAndSpace() (time.Time, Space) {
	duration := r.ptoBackoff(r.RTT.PTO(0))
	if !r.ackElicitingInFlight() {
		// The anti-deadlock PTO of a client, timed from its last event.
		if r.handshakeKeys {
			return r.lastEvent.Add(duration), SpaceHandshake
		}
		return r.lastEvent.Add(duration), SpaceInitial
	}
	var timeout time.Time
	space := SpaceInitial
	for i := range r.spaces {
		s := r.spaces[i]
		if s.elicitingInFlight == 0 {
			continue
		}
		if Space(i) == SpaceApp {
			if !r.confirmed {
				break
			}
			duration += r.ptoBackoff(r.MaxAckDelay)
		}
		t := s.lastAckEliciting.Add(duration)
		if timeout.IsZero() || t.Before(timeout) {
			timeout, space = t, Space(i)
		}
	}
	return timeout, space
}

// LossTimeout returns when the loss detection timer fires (appendix A.8's
// SetLossDetectionTimer): the earliest time a packet will be lost by the
// time threshold, else the PTO of the spaces with ack-eliciting packets in
// flight; zero when no timer is armed (nothing in flight, or a server at
// its amplification limit).
func (r *Recovery) LossTimeout() time.Time {
	if t, _ := r.lossTimeAndSpace(); !t.IsZero() {
		return t
	}
	if r.ampBlocked && r.server {
		return time.Time{}
	}
	if !r.ackElicitingInFlight() && r.peerCompletedAddressValidation() {
		return time.Time{}
	}
	t, _ := r.ptoTimeAndSpace()
	return t
}

// OnLossTimeout handles the timer firing at now (appendix A.9): packets
// past the time threshold are declared lost through h, or else the PTO
// has expired and probes ack-eliciting packets are to be sent in space,
// whatever the congestion window says (new data, data retransmitted, or a
// PING). Called before LossTimeout, it does nothing.
func (r *Recovery) OnLossTimeout(now time.Time, h LossHandler) (probes int, space Space) {
	timeout := r.LossTimeout()
	if timeout.IsZero() || now.Before(timeout) {
		return 0, SpaceInitial
	}
	r.lastEvent = now
	if t, sp := r.lossTimeAndSpace(); !t.IsZero() {
		r.detectLost(sp, now, h)
		r.updatePacer()
		return 0, sp
	}
	r.stats.PTOs++
	if !r.ackElicitingInFlight() {
		// Anti-deadlock: a padded Initial or a Handshake packet.
		_, space = r.ptoTimeAndSpace()
		probes = 1
	} else {
		_, space = r.ptoTimeAndSpace()
		probes = ptoProbes
	}
	r.ptoCount++
	return probes, space
}
