package quic

import (
	"testing"
	"time"
)

const ms = time.Millisecond

func TestRTTBeforeSample(t *testing.T) {
	var r RTT
	// RFC 9002 section 6.2.2: with no sample, PTO = 333 + 4*166.5 ms.
	if got, want := r.PTO(0), 999*ms; got != want {
		t.Errorf("initial PTO = %v, want %v", got, want)
	}
	if r.HasSample() {
		t.Error("a zero RTT has a sample")
	}
}

func TestRTTUpdate(t *testing.T) {
	var r RTT
	r.Update(100*ms, 0, false, 25*ms)
	if r.Min != 100*ms || r.Smoothed != 100*ms || r.Var != 50*ms {
		t.Fatalf("first sample: %+v", r)
	}
	// 120 ms with 10 ms of ack delay: adjusted 110.
	// rttvar = 3/4*50 + 1/4*|100-110| = 40; smoothed = 7/8*100 + 1/8*110 = 101.25.
	r.Update(120*ms, 10*ms, true, 25*ms)
	if r.Var != 40*ms || r.Smoothed != 101250*time.Microsecond || r.Min != 100*ms {
		t.Fatalf("second sample: %+v", r)
	}
	// An ack delay that would take the sample below min_rtt is not
	// subtracted: 105 - 10 < 100, so adjusted stays 105.
	r.Update(105*ms, 10*ms, true, 25*ms)
	if want := (7*101250*time.Microsecond + 105*ms) / 8; r.Smoothed != want {
		t.Errorf("third sample: smoothed %v, want %v", r.Smoothed, want)
	}
	// After confirmation the delay is capped at max_ack_delay: 200 - 25.
	before := r.Smoothed
	r.Update(200*ms, 80*ms, true, 25*ms)
	if want := (7*before + 175*ms) / 8; r.Smoothed != want {
		t.Errorf("capped delay: smoothed %v, want %v", r.Smoothed, want)
	}
	// Before it, the whole delay counts: 200 - 80.
	before = r.Smoothed
	r.Update(200*ms, 80*ms, false, 25*ms)
	if want := (7*before + 120*ms) / 8; r.Smoothed != want {
		t.Errorf("uncapped delay: smoothed %v, want %v", r.Smoothed, want)
	}
	r.Update(50*ms, 0, true, 25*ms)
	if r.Min != 50*ms || r.Latest != 50*ms {
		t.Errorf("min_rtt %v, latest %v", r.Min, r.Latest)
	}
}

func TestRTTTimers(t *testing.T) {
	var r RTT
	r.Update(100*ms, 0, false, 0)
	if got, want := r.PTO(25*ms), 100*ms+200*ms+25*ms; got != want {
		t.Errorf("PTO = %v, want %v", got, want)
	}
	if got, want := r.PersistentCongestion(25*ms), 3*325*ms; got != want {
		t.Errorf("persistent congestion = %v, want %v", got, want)
	}
	if got, want := r.LossDelay(), 112500*time.Microsecond; got != want {
		t.Errorf("loss delay = %v, want %v", got, want)
	}
	var tiny RTT
	tiny.Update(100*time.Microsecond, 0, false, 0)
	if tiny.LossDelay() != TimerGranularity || tiny.PTO(0) != 100*time.Microsecond+TimerGranularity {
		t.Errorf("granularity floor: loss delay %v, PTO %v", tiny.LossDelay(), tiny.PTO(0))
	}
}

func TestAckDelay(t *testing.T) {
	if got := AckDelay(1000, 3); got != 8*ms {
		t.Errorf("AckDelay(1000, 3) = %v, want 8ms", got)
	}
	if got := AckDelay(MaxVarint, 20); got <= 0 {
		t.Errorf("AckDelay of the largest field overflowed to %v", got)
	}
}
