package quic

import (
	"testing"
	"time"
)

func TestRenoInitialWindow(t *testing.T) {
	// min(10 * mds, max(14720, 2 * mds)); the minimum is 2 * mds.
	tests := []struct{ mds, initial, minimum int }{
		{1200, 12000, 2400},
		{1472, 14720, 2944},
		{1500, 14720, 3000},
		{9000, 18000, 18000},
		{0, 12000, 2400}, // the default, 1200
	}
	for _, tt := range tests {
		var c NewReno
		c.Init(tt.mds)
		if c.Window() != tt.initial || c.MinWindow() != tt.minimum {
			t.Errorf("mds %d: window %d min %d, want %d %d", tt.mds, c.Window(), c.MinWindow(), tt.initial, tt.minimum)
		}
	}
}

// fill sends a window's worth of 1200-byte packets and acknowledges them
// all, sent at sent.
func fill(c *NewReno, sent time.Time) {
	w := c.Window()
	c.OnPacketSent(w)
	for range w / 1200 {
		c.OnAcked(sent, 1200)
	}
}

func TestRenoSlowStartDoubles(t *testing.T) {
	var c NewReno
	c.Init(1200)
	for _, want := range []int{24000, 48000, 96000} {
		fill(&c, t0)
		if c.Window() != want {
			t.Fatalf("window %d after a round trip, want %d", c.Window(), want)
		}
	}
	if !c.CanSend(96000-1200) || c.CanSend(96000-1199) {
		t.Error("CanSend does not fit a full datagram in the window")
	}
}

func TestRenoAppLimitedDoesNotGrow(t *testing.T) {
	var c NewReno
	c.Init(1200)
	c.OnPacketSent(1200) // 1200 of 12000 in use: under half in slow start
	c.OnAcked(t0, 1200)
	if c.Window() != 12000 {
		t.Fatalf("window grew to %d while the sender did not use it", c.Window())
	}
}

func TestRenoCongestionAvoidance(t *testing.T) {
	var c NewReno
	c.Init(1200)
	// A loss at 1 s of a packet sent at 0: window and ssthresh 12000/2.
	if !c.OnCongestionEvent(t0, at(time.Second)) || c.Window() != 6000 || c.SlowStartThreshold() != 6000 {
		t.Fatalf("after a congestion event: window %d ssthresh %d", c.Window(), c.SlowStartThreshold())
	}
	// Packets sent before the recovery period began do not grow it.
	c.OnPacketSent(6000)
	c.OnAcked(at(500*ms), 1200)
	if c.Window() != 6000 {
		t.Fatalf("an ACK of a packet sent before recovery grew the window to %d", c.Window())
	}
	// Then one datagram per window acknowledged: 6000 bytes make 7200,
	// 7200 more make 8400; 7199 are not enough.
	sent := at(2 * time.Second)
	steps := []struct{ acked, want int }{{6000, 7200}, {7200, 8400}, {8400 - 1, 8400}, {1, 9600}}
	for _, s := range steps {
		c.OnPacketSent(c.Window())
		c.OnAcked(sent, s.acked)
		if c.Window() != s.want {
			t.Fatalf("after %d bytes acknowledged: window %d, want %d", s.acked, c.Window(), s.want)
		}
	}
}

func TestRenoOneReductionPerRecoveryPeriod(t *testing.T) {
	var c NewReno
	c.Init(1200)
	tests := []struct {
		name      string
		sent, now time.Duration
		reduced   bool
		window    int
	}{
		{"a first loss halves", 0, 100 * ms, true, 6000},
		{"a packet sent before the period began does not", 50 * ms, 150 * ms, false, 6000},
		{"nor one sent as it began", 100 * ms, 200 * ms, false, 6000},
		{"one sent after starts a new period", 101 * ms, 300 * ms, true, 3000},
		{"down to the minimum window at most", 301 * ms, 400 * ms, true, 2400},
	}
	for _, tt := range tests {
		if got := c.OnCongestionEvent(at(tt.sent), at(tt.now)); got != tt.reduced || c.Window() != tt.window {
			t.Fatalf("%s: reduced %v window %d, want %v %d", tt.name, got, c.Window(), tt.reduced, tt.window)
		}
	}
}

func TestRenoPersistentCongestion(t *testing.T) {
	var c NewReno
	c.Init(1200)
	fill(&c, t0)
	c.OnPersistentCongestion()
	if c.Window() != 2400 {
		t.Fatalf("window %d, want the minimum 2400", c.Window())
	}
	// The recovery period is over: a loss of a packet sent long ago
	// reduces again (to the minimum, which it already is).
	if !c.OnCongestionEvent(t0, at(time.Second)) {
		t.Error("no new recovery period after persistent congestion")
	}
}

func TestRenoMaxDatagramSize(t *testing.T) {
	var c NewReno
	c.Init(1200)
	c.OnCongestionEvent(t0, at(ms))
	c.OnCongestionEvent(at(2*ms), at(3*ms))
	c.OnCongestionEvent(at(4*ms), at(5*ms)) // 2400
	c.SetMaxDatagramSize(1500)
	if c.Window() != 3000 {
		t.Errorf("window %d, want the new minimum 3000", c.Window())
	}
}
