package quic

import (
	"testing"
	"time"
)

func TestPacerSpacing(t *testing.T) {
	// cwnd 12000 bytes over a smoothed RTT of 100 ms at gain 1.25: 150000
	// bytes a second, a 1200-byte packet every 1200/150000 s = 8 ms once
	// the 12000-byte burst is spent.
	var p Pacer
	p.SetBurst(12000)
	p.SetRate(12000, 100*ms)
	now := t0
	for i := range 10 {
		if got := p.NextSendTime(now, 1200); !got.Equal(now) {
			t.Fatalf("packet %d of the burst waits until %v", i, got.Sub(t0))
		}
		p.OnSent(now, 1200)
	}
	for i, want := range []time.Duration{8 * ms, 16 * ms, 24 * ms} {
		got := p.NextSendTime(now, 1200)
		if !got.Equal(at(want)) {
			t.Fatalf("paced packet %d at %v, want %v", i, got.Sub(t0), want)
		}
		now = got
		p.OnSent(now, 1200)
	}
	// Half a packet's time earns half its tokens: 600 bytes wait 4 ms.
	if got := p.NextSendTime(now, 600); !got.Equal(at(28 * ms)) {
		t.Fatalf("600 bytes at %v, want 28ms", got.Sub(t0))
	}
	// An idle second refills the bucket to the burst, no more.
	now = at(time.Second + 24*ms)
	for range 10 {
		if got := p.NextSendTime(now, 1200); !got.Equal(now) {
			t.Fatalf("after idling: waits until %v", got.Sub(t0))
		}
		p.OnSent(now, 1200)
	}
	if got := p.NextSendTime(now, 1200); !got.Equal(now.Add(8 * ms)) {
		t.Fatalf("the burst after idling exceeded 12000 bytes: next at %v", got.Sub(now))
	}
}

func TestPacerRate(t *testing.T) {
	tests := []struct {
		name   string
		window int
		srtt   time.Duration
		size   int
		wait   time.Duration // for size bytes with an empty bucket
	}{
		// size * srtt / (1.25 * window)
		{"doubled window halves the wait", 24000, 100 * ms, 1200, 4 * ms},
		{"doubled RTT doubles it", 12000, 200 * ms, 1200, 16 * ms},
		{"minimum window", 2400, 100 * ms, 1200, 40 * ms},
		{"no RTT: no pacing", 12000, 0, 1200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Pacer
			p.SetBurst(tt.size)
			p.SetRate(tt.window, tt.srtt)
			p.OnSent(t0, tt.size)
			if got := p.NextSendTime(t0, tt.size); got.Sub(t0) != tt.wait {
				t.Errorf("wait %v, want %v", got.Sub(t0), tt.wait)
			}
		})
	}
}

func TestPacerZeroValue(t *testing.T) {
	var p Pacer
	p.OnSent(t0, 1<<20)
	if got := p.NextSendTime(t0, 1200); !got.Equal(t0) {
		t.Errorf("a zero Pacer delays to %v", got.Sub(t0))
	}
}

func TestRecoveryPacesAtWindow(t *testing.T) {
	// Recovery keeps its pacer at its window and RTT: before a sample,
	// 12000 bytes per 333 ms at gain 1.25, so 1200 bytes past the burst
	// wait 1200 * 333 / 15000 ms = 26.64 ms.
	r := newRecovery(false)
	send(r, SpaceApp, []time.Duration{0}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	if got := r.NextSendTime(t0, 1200); got.Sub(t0) != 26640*time.Microsecond {
		t.Errorf("next send after the burst %v, want 26.64ms", got.Sub(t0))
	}
}
