package quic

import "time"

// DefaultMaxDatagramSize is the maximum datagram size congestion control
// assumes until the engine says otherwise: the smallest every QUIC path
// carries (RFC 9000 section 14).
const DefaultMaxDatagramSize = 1200

// lossReductionFactor halves the window on a congestion event
// (RFC 9002 section 7.3.2): ssthresh = cwnd * 1/2.
const (
	lossReductionNum = 1
	lossReductionDen = 2
)

// NewReno is RFC 9002's congestion controller (section 7, appendix B):
// slow start, congestion avoidance, one window reduction per recovery
// period, and the collapse to the minimum window on persistent
// congestion. It counts bytes, not packets; bytes in flight are the
// caller's (Recovery keeps them). The zero value is not ready: call Init.
type NewReno struct {
	maxDatagram   int
	window        int
	ssthresh      int // 0 means infinite: still in the first slow start
	recoveryStart time.Time
	inRecovery    bool
	acked         int  // bytes acknowledged towards the next increase in congestion avoidance
	cwndLimited   bool // the window was in use at the last send (section 7.8)
}

// Init readies c with the initial window for maxDatagramSize bytes, or
// DefaultMaxDatagramSize if it is 0 or less.
func (c *NewReno) Init(maxDatagramSize int) {
	*c = NewReno{}
	c.SetMaxDatagramSize(maxDatagramSize)
	c.window = c.InitialWindow()
}

// SetMaxDatagramSize changes the maximum datagram size (after path MTU
// discovery or the peer's max_udp_payload_size): the initial and minimum
// windows scale with it, and the window is raised to the new minimum.
func (c *NewReno) SetMaxDatagramSize(n int) {
	if n <= 0 {
		n = DefaultMaxDatagramSize
	}
	c.maxDatagram = n
	c.window = max(c.window, c.MinWindow())
}

// MaxDatagramSize returns the maximum datagram size in use.
func (c *NewReno) MaxDatagramSize() int { return c.maxDatagram }

// InitialWindow returns RFC 9002 section 7.2's initial window:
// min(10 * max_datagram_size, max(14720, 2 * max_datagram_size)).
func (c *NewReno) InitialWindow() int {
	return min(10*c.maxDatagram, max(14720, 2*c.maxDatagram))
}

// MinWindow returns the minimum window, 2 * max_datagram_size.
func (c *NewReno) MinWindow() int { return 2 * c.maxDatagram }

// Window returns the congestion window in bytes.
func (c *NewReno) Window() int { return c.window }

// SlowStartThreshold returns ssthresh in bytes, 0 before the first
// congestion event (when it is infinite).
func (c *NewReno) SlowStartThreshold() int { return c.ssthresh }

// InSlowStart reports whether the window is below ssthresh.
func (c *NewReno) InSlowStart() bool { return c.ssthresh == 0 || c.window < c.ssthresh }

// CanSend reports whether a datagram of the maximum size fits in the
// window with bytesInFlight already sent. Probes sent on a PTO are sent
// whatever it says (RFC 9002 section 7).
func (c *NewReno) CanSend(bytesInFlight int) bool {
	return bytesInFlight+c.maxDatagram <= c.window
}

// OnPacketSent notes an in-flight packet sent, bytesInFlight counting it:
// the window grows only while it limits the sender (RFC 9002 section 7.8).
// In slow start the window counts as used when half of it is in flight,
// as the window doubles each round trip; in congestion avoidance when
// less than one datagram of it is left.
func (c *NewReno) OnPacketSent(bytesInFlight int) {
	if c.InSlowStart() {
		c.cwndLimited = 2*bytesInFlight >= c.window
	} else {
		c.cwndLimited = bytesInFlight+c.maxDatagram > c.window
	}
}

// inRecoveryFor reports whether a packet sent at sent was sent during the
// current recovery period (appendix B.4's InCongestionRecovery).
func (c *NewReno) inRecoveryFor(sent time.Time) bool {
	return c.inRecovery && !sent.After(c.recoveryStart)
}

// OnAcked grows the window for an in-flight packet of size bytes sent at
// sent and now acknowledged (appendix B.5): by its size in slow start,
// by one maximum datagram per window acknowledged in congestion
// avoidance; not at all for a packet sent before the current recovery
// period began, nor while the sender is not using the window.
func (c *NewReno) OnAcked(sent time.Time, size int) {
	if c.inRecoveryFor(sent) || !c.cwndLimited {
		return
	}
	if c.InSlowStart() {
		c.window += size
		return
	}
	c.acked += size
	if c.acked >= c.window {
		c.acked -= c.window
		c.window += c.maxDatagram
	}
}

// OnCongestionEvent reacts to a loss or an ECN-CE mark of a packet sent at
// sent, now (appendix B.6): unless that packet was sent during the
// current recovery period, a new one starts and the window halves, down
// to the minimum at most. It reports whether a recovery period began.
func (c *NewReno) OnCongestionEvent(sent, now time.Time) bool {
	if c.inRecoveryFor(sent) {
		return false
	}
	c.inRecovery, c.recoveryStart = true, now
	c.ssthresh = max(c.window*lossReductionNum/lossReductionDen, c.MinWindow())
	c.window = c.ssthresh
	c.acked = 0
	return true
}

// OnPersistentCongestion collapses the window to the minimum and ends the
// recovery period (RFC 9002 section 7.6.2, appendix B.8).
func (c *NewReno) OnPersistentCongestion() {
	c.window = c.MinWindow()
	c.inRecovery = false
	c.recoveryStart = time.Time{}
	c.acked = 0
}
