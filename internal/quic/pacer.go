package quic

import (
	"math"
	"time"
)

// PacingGain is N of RFC 9002 section 7.7: packets are paced at
// N * cwnd / smoothed_rtt, a little faster than the window alone allows,
// so that pacing does not hold the sender below its window.
const PacingGain = 1.25

// Pacer spaces packets out over the round trip (RFC 9002 section 7.7): a
// token bucket that fills at PacingGain * window / smoothed RTT bytes per
// unit of time and holds at most a burst's worth, the initial window, so a
// sender idle for a while may send that much at once. It reads no clock:
// every time is an argument. The zero value never delays a packet until
// SetRate is called.
type Pacer struct {
	burst  float64 // bytes the bucket holds at most
	rate   float64 // bytes per nanosecond, 0 for no pacing
	tokens float64 // bytes that may be sent now, as of last
	last   time.Time
}

// SetBurst sets how many bytes may be sent back to back, RFC 9002's
// initial window.
func (p *Pacer) SetBurst(bytes int) {
	p.burst = float64(bytes)
	p.tokens = min(p.tokens, p.burst)
}

// SetRate sets the pacing rate from the congestion window and the
// smoothed RTT; a zero or negative RTT turns pacing off.
func (p *Pacer) SetRate(window int, smoothedRTT time.Duration) {
	if smoothedRTT <= 0 || window <= 0 {
		p.rate = 0
		return
	}
	p.rate = PacingGain * float64(window) / float64(smoothedRTT)
}

// available returns the tokens at now: full before the first packet,
// else those left at the last send plus those earned since.
func (p *Pacer) available(now time.Time) float64 {
	if p.last.IsZero() {
		return p.burst
	}
	elapsed := now.Sub(p.last)
	if elapsed <= 0 {
		return p.tokens
	}
	return min(p.burst, p.tokens+float64(elapsed)*p.rate)
}

// NextSendTime returns when a packet of size bytes may be sent: now if
// the bucket holds enough, else when it will.
func (p *Pacer) NextSendTime(now time.Time, size int) time.Time {
	if p.rate == 0 {
		return now
	}
	tokens := p.available(now)
	need := float64(size) - tokens
	if need <= 0 {
		return now
	}
	return now.Add(time.Duration(math.Ceil(need/p.rate - 1e-6)))
}

// OnSent takes size bytes from the bucket for a packet sent at now. A
// packet sent early (a probe) may leave it in debt, which delays the next.
func (p *Pacer) OnSent(now time.Time, size int) {
	p.tokens = p.available(now) - float64(size)
	if p.last.IsZero() || now.After(p.last) {
		p.last = now
	}
}
