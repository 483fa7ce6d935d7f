package quic

import "time"

// ECN is an IP packet's Explicit Congestion Notification codepoint (RFC
// 3168): the two low bits of the IPv4 TOS byte or the IPv6 traffic class.
// A router that would drop an ECN-capable packet may mark it CE instead,
// and QUIC's ACK frames of type 0x03 report the marks back.
type ECN uint8

// The ECN codepoints.
const (
	ECNNotECT ECN = 0 // not ECN-capable
	ECNECT1   ECN = 1 // ECN-capable transport (1), which QUIC never sends
	ECNECT0   ECN = 2 // ECN-capable transport (0), what QUIC sends
	ECNCE     ECN = 3 // congestion experienced
)

// ecnState is where a connection's ECN validation is (RFC 9000 section
// 13.4.2): the path must show that ECT(0) marks cross it and come back in
// the peer's counts before they are trusted.
type ecnState uint8

const (
	ecnOff     ecnState = iota // not asked for (Config.ECN) or validation failed: no marks
	ecnTesting                 // marking the first ecnTestPackets packets
	ecnUnknown                 // the test packets sent, none acknowledged with counts yet: no marks
	ecnCapable                 // validated: every packet marked
)

// ecnTestPackets is how many packets are marked before the path has shown
// it carries marks: if every one of them is lost, the marks may be why
// (a middlebox that drops ECN-capable packets), and ECN is turned off.
const ecnTestPackets = 10

// ecnPath is a connection's ECN state on its path.
type ecnPath struct {
	state      ecnState
	mark       ECN    // the codepoint of the datagram being built (DatagramECN)
	failed     bool   // validation failed (state is ecnOff since)
	testSent   uint8  // packets marked while testing
	testLost   uint8  // of those, declared lost
	newlyAcked uint64 // ECT(0) packets the ACK being processed newly acknowledged
	ceReported uint64 // the peer's CE counts, summed over spaces, validated
}

// init starts testing the path when the caller can set and read marks.
func (e *ecnPath) init(on bool) {
	if on {
		e.state = ecnTesting
	}
}

// nextMark is the codepoint of the next datagram. Only 1-RTT packets are
// marked, and only once the handshake is confirmed, when no other kind is
// sent: the Initial and Handshake spaces are discarded before their
// packets are all acknowledged or lost, which would leave a test
// unfinished, and a lost handshake packet costs more than a lost 1-RTT one.
func (e *ecnPath) nextMark(confirmed bool) ECN {
	if confirmed && (e.state == ecnTesting || e.state == ecnCapable) {
		return ECNECT0
	}
	return ECNNotECT
}

// onSent counts a marked packet while testing.
func (e *ecnPath) onSent() {
	if e.state != ecnTesting {
		return
	}
	e.testSent++
	if e.testSent >= ecnTestPackets {
		e.state = ecnUnknown
	}
}

// onLost counts a marked packet lost: when every test packet is lost and
// none was acknowledged, marks are given up.
func (e *ecnPath) onLost() {
	if e.state != ecnTesting && e.state != ecnUnknown {
		return
	}
	e.testLost++
	if e.state == ecnUnknown && e.testLost >= e.testSent {
		e.fail()
	}
}

// fail turns marks off for good on this path.
func (e *ecnPath) fail() {
	e.state, e.failed = ecnOff, true
}

// onAckECN validates the ECN counts of an ACK frame f of space sp, after
// its packets were processed (connLoss.Acked counted the marked ones
// newly acknowledged), and reacts to new CE marks as to a loss. largest
// says the ACK raised the space's largest acknowledged packet: an older
// ACK, reordered, may carry older counts and is not used for them.
func (c *Conn) onAckECN(sp spaceID, f *Frame, largest bool, now time.Time) {
	e := &c.ecn
	newly := e.newlyAcked
	e.newlyAcked = 0
	if e.state == ecnOff {
		return
	}
	if f.Type != FrameAckECN {
		if newly > 0 {
			e.fail() // marked packets acknowledged without counts: something cleared them
		}
		return
	}
	s := c.spaces[sp]
	if !largest {
		return
	}
	got := ECNCounts{ECT0: f.ECT0, ECT1: f.ECT1, CE: f.ECNCE}
	was := s.ecnAcked
	if got.ECT0 < was.ECT0 || got.ECT1 < was.ECT1 || got.CE < was.CE {
		e.fail()
		return
	}
	dECT0, dCE := got.ECT0-was.ECT0, got.CE-was.CE
	if got.ECT1 > was.ECT1 || dECT0+dCE < newly {
		// ECT(1) was never sent, and every ECT(0) packet acknowledged
		// must be counted as ECT(0) or CE: a path that re-marks or clears.
		e.fail()
		return
	}
	s.ecnAcked = got
	if newly > 0 && e.state != ecnCapable {
		e.state = ecnCapable
	}
	if dCE > 0 {
		e.ceReported += dCE
		c.loss.r.OnECN(Space(sp), got.CE, now)
	}
}

// countReceived counts the mark of a packet received in space sp, for the
// counts this end's ACK frames report.
func (s *pnSpace) countReceived(mark ECN) {
	switch mark {
	case ECNECT0:
		s.ecnRecv.ECT0++
	case ECNECT1:
		s.ecnRecv.ECT1++
	case ECNCE:
		s.ecnRecv.CE++
	}
}

// ackECN returns the counts an ACK frame of space s carries: nil (an ACK
// of type 0x02) until a marked packet has arrived.
func (s *pnSpace) ackECN() *ECNCounts {
	if s.ecnRecv == (ECNCounts{}) {
		return nil
	}
	return &s.ecnRecv
}

// DatagramECN returns the ECN codepoint the datagram AppendDatagram last
// appended is to be sent with: ECT(0) while the path is being tested and
// once it is validated, Not-ECT otherwise. The caller sets it on the
// datagram (IP_TOS, IPV6_TCLASS).
func (c *Conn) DatagramECN() ECN { return c.ecn.mark }
