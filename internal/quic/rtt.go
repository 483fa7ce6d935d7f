package quic

import "time"

// The constants of RFC 9002's loss detection (sections 6.1 and 6.2.2).
const (
	// InitialRTT is the RTT assumed before the first sample.
	InitialRTT = 333 * time.Millisecond
	// TimerGranularity is the clock's assumed granularity: the least
	// loss delay and the least PTO variance term.
	TimerGranularity = time.Millisecond
	// PacketThreshold is how many packets acknowledged after an
	// unacknowledged one declare it lost.
	PacketThreshold = 3
	// PersistentCongestionThreshold multiplies the PTO period into the
	// duration of persistent congestion (RFC 9002 section 7.6.1).
	PersistentCongestionThreshold = 3
)

// RTT is a path's round-trip time estimate (RFC 9002 section 5): the
// latest sample, the minimum, the smoothed average and its variation. The
// zero value holds no sample and estimates InitialRTT.
type RTT struct {
	Latest   time.Duration
	Min      time.Duration
	Smoothed time.Duration
	Var      time.Duration
	sampled  bool
}

// SmoothedRTT returns smoothed_rtt, InitialRTT before the first sample.
func (r *RTT) SmoothedRTT() time.Duration {
	if !r.sampled {
		return InitialRTT
	}
	return r.Smoothed
}

// variance returns rttvar, InitialRTT/2 before the first sample.
func (r *RTT) variance() time.Duration {
	if !r.sampled {
		return InitialRTT / 2
	}
	return r.Var
}

// HasSample reports whether a sample has been taken.
func (r *RTT) HasSample() bool { return r.sampled }

// Update takes an RTT sample: latest is the time from sending the largest
// newly acknowledged packet (an ack-eliciting one) to receiving its ACK,
// ackDelay the delay the ACK reports (see AckDelay). After the handshake
// is confirmed the delay is capped at the peer's maxAckDelay; it is
// subtracted only if that leaves the sample at or above Min (RFC 9002
// section 5.3, appendix A.7: rttvar is updated before smoothed_rtt, from
// the previous smoothed_rtt).
func (r *RTT) Update(latest, ackDelay time.Duration, handshakeConfirmed bool, maxAckDelay time.Duration) {
	r.Latest = latest
	if !r.sampled {
		r.sampled = true
		r.Min, r.Smoothed, r.Var = latest, latest, latest/2
		return
	}
	r.Min = min(r.Min, latest)
	if handshakeConfirmed {
		ackDelay = min(ackDelay, maxAckDelay)
	}
	adjusted := latest
	if latest >= r.Min+ackDelay {
		adjusted = latest - ackDelay
	}
	diff := r.Smoothed - adjusted
	if diff < 0 {
		diff = -diff
	}
	r.Var = (3*r.Var + diff) / 4
	r.Smoothed = (7*r.Smoothed + adjusted) / 8
}

// PTO returns the probe timeout period before any backoff (RFC 9002
// section 6.2.1): smoothed_rtt + max(4*rttvar, TimerGranularity) +
// maxAckDelay, the last being 0 for the Initial and Handshake spaces.
func (r *RTT) PTO(maxAckDelay time.Duration) time.Duration {
	return r.SmoothedRTT() + max(4*r.variance(), TimerGranularity) + maxAckDelay
}

// LossDelay returns how long after a later packet was acknowledged an
// unacknowledged one is declared lost (RFC 9002 section 6.1.2): 9/8 of the
// larger of smoothed_rtt and latest_rtt, at least TimerGranularity.
func (r *RTT) LossDelay() time.Duration {
	return max(9*max(r.SmoothedRTT(), r.Latest)/8, TimerGranularity)
}

// PersistentCongestion returns the duration over which all packets lost
// means persistent congestion (RFC 9002 section 7.6.1).
func (r *RTT) PersistentCongestion(maxAckDelay time.Duration) time.Duration {
	return r.PTO(maxAckDelay) * PersistentCongestionThreshold
}

// AckDelay decodes an ACK frame's ACK Delay field with the peer's
// ack_delay_exponent (RFC 9000 section 19.3): field * 2^exponent
// microseconds, saturating rather than overflowing.
func AckDelay(field, exponent uint64) time.Duration {
	if exponent > maxAckDelayExponent {
		exponent = maxAckDelayExponent
	}
	const maxMicros = uint64(1<<63-1) / uint64(time.Microsecond)
	if field > maxMicros>>exponent {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(field<<exponent) * time.Microsecond
}
