package quic

import "time"

// ConnStats is what a connection has seen, for a load report: its
// round-trip estimate and what loss detection counted.
type ConnStats struct {
	SmoothedRTT time.Duration // smoothed_rtt (RFC 9002 section 5.3), InitialRTT before a sample
	MinRTT      time.Duration // the smallest sample, 0 before one
	Retried     bool          // a client that followed a Retry
	Resumed     bool          // the handshake resumed a TLS session
	ECN         bool          // ECN validated: ECT(0) marks crossed the path and the peer counted them
	ECNFailed   bool          // ECN validation failed, and marks were turned off
	ECNCE       uint64        // CE marks the peer counted on this end's packets
	ECNMarked   uint64        // packets received with an ECN mark (ECT or CE): the peer marks
	RecoveryStats
}

// Stats returns the connection's counters and estimates.
func (c *Conn) Stats() ConnStats {
	s := ConnStats{
		SmoothedRTT:   c.loss.r.RTT.SmoothedRTT(),
		MinRTT:        c.loss.r.RTT.Min,
		Retried:       c.retried,
		ECN:           c.ecn.state == ecnCapable,
		ECNFailed:     c.ecn.failed,
		ECNCE:         c.ecn.ceReported,
		RecoveryStats: c.loss.r.Stats(),
	}
	s.ECNMarked = c.longMarks
	for _, sp := range c.spaces {
		r := sp.ecnRecv
		s.ECNMarked += r.ECT0 + r.ECT1 + r.CE
	}
	if c.handshakeComplete {
		s.Resumed = c.ConnectionState().DidResume
	}
	return s
}

// StreamsAvailable returns how many more streams of this end, of the
// given direction, the peer's limit lets OpenStream open now: 0 before
// the handshake is complete and once the connection is closing.
func (c *Conn) StreamsAvailable(uni bool) int {
	if !c.handshakeComplete || c.state != stateActive {
		return 0
	}
	d := 0
	if uni {
		d = 1
	}
	ss := &c.strms
	if ss.opened[d] >= ss.limit[d] {
		return 0
	}
	return int(min(ss.limit[d]-ss.opened[d], 1<<30))
}
