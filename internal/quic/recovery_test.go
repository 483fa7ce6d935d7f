package quic

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// t0 is the synthetic clock's origin.
var t0 = time.Unix(1_000_000, 0)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// recorder is a LossHandler noting the numbers it hears of.
type recorder struct{ acked, lost []uint64 }

func (h *recorder) Acked(_ Space, p *SentPacket) { h.acked = append(h.acked, p.Number) }
func (h *recorder) Lost(_ Space, p *SentPacket)  { h.lost = append(h.lost, p.Number) }

// ackOf returns the ranges of an ACK frame acknowledging ranges, each
// {smallest, largest}, largest first, written and parsed as on the wire.
func ackOf(t testing.TB, ranges ...[2]uint64) AckRangeReader {
	t.Helper()
	b := AppendVarint(nil, uint64(FrameAck))
	b = AppendVarint(b, ranges[0][1])
	b = AppendVarint(b, 0)
	b = AppendVarint(b, uint64(len(ranges)-1))
	b = AppendVarint(b, ranges[0][1]-ranges[0][0])
	for i := 1; i < len(ranges); i++ {
		b = AppendVarint(b, ranges[i-1][0]-ranges[i][1]-2)
		b = AppendVarint(b, ranges[i][1]-ranges[i][0])
	}
	f, _, err := ParseFrame(b)
	if err != nil {
		t.Fatalf("ACK of %v: %v", ranges, err)
	}
	return f.AckRanges()
}

// newRecovery returns a client Recovery for 1200-byte datagrams.
func newRecovery(server bool) *Recovery {
	r := new(Recovery)
	r.Init(server, 1200)
	return r
}

// send records full-sized ack-eliciting packets numbered pns, sent at
// the times given (the last one repeated for the rest).
func send(r *Recovery, space Space, times []time.Duration, pns ...uint64) {
	for i, pn := range pns {
		d := times[min(i, len(times)-1)]
		r.OnPacketSent(space, SentPacket{Number: pn, Time: at(d), Size: 1200, AckEliciting: true, InFlight: true})
	}
}

func TestRecoveryPacketThreshold(t *testing.T) {
	// Packets 0-5 sent 1 ms apart, acknowledged 100 ms after the ACK's
	// largest was sent: the loss delay is 9/8 * 100 ms = 112.5 ms, longer
	// than the spread of sending times, so only the packet threshold (3
	// numbers below the largest acknowledged) declares losses.
	tests := []struct {
		name     string
		acks     [][2]uint64
		lost     []uint64
		acked    []uint64
		lossTime time.Duration // of the first packet still outstanding below the largest acked
	}{
		{"acking 3 loses 0 alone", [][2]uint64{{3, 3}}, []uint64{0}, []uint64{3}, 1*ms + 112500*time.Microsecond},
		{"acking 5 loses 0, 1 and 2", [][2]uint64{{5, 5}}, []uint64{0, 1, 2}, []uint64{5}, 3*ms + 112500*time.Microsecond},
		{"acking 2 loses nothing", [][2]uint64{{1, 2}}, nil, []uint64{2, 1}, 0*ms + 112500*time.Microsecond},
		{"acking 4 and 0 loses 1", [][2]uint64{{4, 4}, {0, 0}}, []uint64{1}, []uint64{4, 0}, 2*ms + 112500*time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecovery(false)
			send(r, SpaceApp, []time.Duration{0, 1 * ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms}, 0, 1, 2, 3, 4, 5)
			largest := tt.acks[0][1]
			var h recorder
			if err := r.OnAckReceived(SpaceApp, ackOf(t, tt.acks...), 0, at(time.Duration(largest)*ms+100*ms), &h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.lost, tt.lost) || !slices.Equal(h.acked, tt.acked) {
				t.Errorf("lost %v acked %v, want lost %v acked %v", h.lost, h.acked, tt.lost, tt.acked)
			}
			if want := 1200 * (6 - len(tt.lost) - len(tt.acked)); r.BytesInFlight() != want {
				t.Errorf("bytes in flight %d, want %d", r.BytesInFlight(), want)
			}
			if got := r.LossTimeout(); !got.Equal(at(tt.lossTime)) {
				t.Errorf("loss timeout %v, want %v", got.Sub(t0), tt.lossTime)
			}
			if st := r.Stats(); st.PacketsSent != 6 || st.PacketsLost != uint64(len(tt.lost)) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestRecoveryTimeThreshold(t *testing.T) {
	// Packet 0 is sent at `first`, packet 1 at 50 ms and acknowledged at
	// 150 ms: latest_rtt = smoothed_rtt = 100 ms, so the loss delay is
	// 9/8 * 100 = 112.5 ms and packets sent at or before 37.5 ms are lost.
	tests := []struct {
		name     string
		first    time.Duration
		lost     bool
		lossTime time.Duration
	}{
		{"sent 150 ms before the ACK is lost", 0, true, 0},
		{"sent exactly the loss delay before is lost", 37500 * time.Microsecond, true, 0},
		{"sent 110 ms before waits", 40 * ms, false, 40*ms + 112500*time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecovery(false)
			send(r, SpaceApp, []time.Duration{tt.first, 50 * ms}, 0, 1)
			var h recorder
			if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{1, 1}), 0, at(150*ms), &h); err != nil {
				t.Fatal(err)
			}
			if got := len(h.lost) == 1; got != tt.lost {
				t.Fatalf("lost %v, want lost %v", h.lost, tt.lost)
			}
			if tt.lost {
				return
			}
			if got := r.LossTimeout(); !got.Equal(at(tt.lossTime)) {
				t.Fatalf("loss timeout %v, want %v", got.Sub(t0), tt.lossTime)
			}
			if probes, _ := r.OnLossTimeout(at(tt.lossTime-time.Microsecond), &h); probes != 0 || len(h.lost) != 0 {
				t.Fatal("the timer acted before its time")
			}
			if probes, _ := r.OnLossTimeout(at(tt.lossTime), &h); probes != 0 || !slices.Equal(h.lost, []uint64{0}) {
				t.Fatalf("at the loss time: probes %d, lost %v", probes, h.lost)
			}
		})
	}
}

func TestRecoveryLossDelayUsesLargerRTT(t *testing.T) {
	// A first sample of 100 ms, then one of 40 ms: smoothed_rtt =
	// 7/8*100 + 1/8*40 = 92.5 ms is larger than latest_rtt, so the loss
	// delay is 9/8 * 92.5 = 104.0625 ms: packet 1, sent 90 ms before the
	// ACK, is lost 104.0625 ms after it was sent.
	r := newRecovery(false)
	var h recorder
	send(r, SpaceApp, []time.Duration{0}, 0)
	if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{0, 0}), 0, at(100*ms), &h); err != nil {
		t.Fatal(err)
	}
	send(r, SpaceApp, []time.Duration{250 * ms, 300 * ms}, 1, 2)
	if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{2, 2}), 0, at(340*ms), &h); err != nil {
		t.Fatal(err)
	}
	if want := at(250*ms + 104062500*time.Nanosecond); !r.LossTimeout().Equal(want) {
		t.Errorf("loss timeout %v, want %v", r.LossTimeout().Sub(t0), want.Sub(t0))
	}
}

func TestRecoveryAckOfUnsentPacket(t *testing.T) {
	// Packets 0, 1, 3 and 4 are sent: 2 was skipped, 5 not sent yet.
	tests := []struct {
		name   string
		ranges [][2]uint64
		bad    bool
	}{
		{"above the largest sent", [][2]uint64{{5, 5}}, true},
		{"a range running past it", [][2]uint64{{3, 7}}, true},
		{"the skipped number", [][2]uint64{{2, 2}}, true},
		{"a range over the skipped number", [][2]uint64{{0, 4}}, true},
		{"a second range holding it", [][2]uint64{{4, 4}, {1, 2}}, true},
		{"every number sent", [][2]uint64{{3, 4}, {0, 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecovery(false)
			send(r, SpaceHandshake, []time.Duration{0}, 0, 1, 3, 4)
			var h recorder
			err := r.OnAckReceived(SpaceHandshake, ackOf(t, tt.ranges...), 0, at(10*ms), &h)
			var te *TransportError
			if got := errors.As(err, &te) && te.Code == ProtocolViolation; got != tt.bad {
				t.Fatalf("error %v, want PROTOCOL_VIOLATION %v", err, tt.bad)
			}
			if tt.bad && (r.BytesInFlight() != 4*1200 || len(h.acked)+len(h.lost) != 0 || r.RTT.HasSample()) {
				t.Errorf("a refused ACK changed state: %d in flight, %v %v", r.BytesInFlight(), h.acked, h.lost)
			}
		})
	}
	t.Run("nothing sent in the space", func(t *testing.T) {
		r := newRecovery(false)
		send(r, SpaceApp, []time.Duration{0}, 0)
		if err := r.OnAckReceived(SpaceInitial, ackOf(t, [2]uint64{0, 0}), 0, at(ms), &recorder{}); err == nil {
			t.Fatal("accepted")
		}
	})
}

func TestRecoveryAckDelayCap(t *testing.T) {
	// A first sample of 100 ms; then a packet acknowledged 200 ms after it
	// was sent with 50 ms of reported ACK delay, max_ack_delay 25 ms. Once
	// the handshake is confirmed the delay counts as 25 ms: adjusted 175,
	// smoothed 7/8*100 + 1/8*175 = 109.375 ms. Before, it counts whole:
	// adjusted 150, smoothed 106.25 ms.
	tests := []struct {
		name      string
		confirmed bool
		smoothed  time.Duration
	}{
		{"capped after confirmation", true, 109375 * time.Microsecond},
		{"whole before confirmation", false, 106250 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecovery(true)
			if tt.confirmed {
				r.SetHandshakeConfirmed()
			}
			var h recorder
			send(r, SpaceApp, []time.Duration{0}, 0)
			if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{0, 0}), 0, at(100*ms), &h); err != nil {
				t.Fatal(err)
			}
			send(r, SpaceApp, []time.Duration{time.Second}, 1)
			if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{1, 1}), 50*ms, at(time.Second+200*ms), &h); err != nil {
				t.Fatal(err)
			}
			if r.RTT.Smoothed != tt.smoothed {
				t.Errorf("smoothed_rtt %v, want %v", r.RTT.Smoothed, tt.smoothed)
			}
		})
	}
}

func TestRecoveryDiscardSpace(t *testing.T) {
	r := newRecovery(false)
	send(r, SpaceInitial, []time.Duration{0}, 0, 1)
	r.OnPacketSent(SpaceApp, SentPacket{Number: 0, Time: at(ms), Size: 1000, AckEliciting: true, InFlight: true})
	if r.BytesInFlight() != 3400 {
		t.Fatalf("bytes in flight %d, want 3400", r.BytesInFlight())
	}
	r.DiscardSpace(SpaceInitial)
	if r.BytesInFlight() != 1000 {
		t.Fatalf("after discarding Initial: %d in flight, want 1000", r.BytesInFlight())
	}
	var h recorder
	if err := r.OnAckReceived(SpaceInitial, ackOf(t, [2]uint64{0, 1}), 0, at(50*ms), &h); err != nil || len(h.acked) != 0 {
		t.Fatalf("an ACK of a discarded space: %v, acked %v", err, h.acked)
	}
	r.OnPacketSent(SpaceInitial, SentPacket{Number: 2, Time: at(2 * ms), Size: 1200, AckEliciting: true, InFlight: true})
	if r.BytesInFlight() != 1000 {
		t.Fatalf("a packet of a discarded space counted: %d in flight", r.BytesInFlight())
	}
	r.DiscardSpace(SpaceInitial)
	if r.BytesInFlight() != 1000 {
		t.Fatalf("discarding twice: %d in flight", r.BytesInFlight())
	}
}

func TestRecoveryPTO(t *testing.T) {
	// Before any sample PTO = 333 + 4 * 333/2 = 999 ms; after one of 100 ms
	// it is 100 + 4*50 = 300 ms, plus max_ack_delay (25 ms) in the
	// application space. Each expiry doubles the whole period.
	t.Run("Initial before any sample, backed off", func(t *testing.T) {
		r := newRecovery(false)
		send(r, SpaceInitial, []time.Duration{0}, 0)
		for i, want := range []time.Duration{999 * ms, 1998 * ms, 3996 * ms} {
			if got := r.LossTimeout(); !got.Equal(at(want)) {
				t.Fatalf("PTO %d: %v, want %v", i, got.Sub(t0), want)
			}
			if probes, space := r.OnLossTimeout(at(want), &recorder{}); probes != 2 || space != SpaceInitial || r.PTOCount() != i+1 {
				t.Fatalf("expiry %d: %d probes in %v, count %d", i, probes, space, r.PTOCount())
			}
		}
		if r.Stats().PTOs != 3 {
			t.Errorf("PTOs counted %d", r.Stats().PTOs)
		}
	})
	t.Run("application space with max_ack_delay, backed off", func(t *testing.T) {
		r := newRecovery(true)
		r.SetHandshakeConfirmed()
		sample(t, r, SpaceApp)
		send(r, SpaceApp, []time.Duration{time.Second}, 1)
		if got, want := r.LossTimeout(), at(time.Second+325*ms); !got.Equal(want) {
			t.Fatalf("PTO %v, want %v", got.Sub(t0), want.Sub(t0))
		}
		if probes, space := r.OnLossTimeout(at(time.Second+325*ms), &recorder{}); probes != 2 || space != SpaceApp {
			t.Fatalf("%d probes in %v", probes, space)
		}
		if got, want := r.LossTimeout(), at(time.Second+650*ms); !got.Equal(want) {
			t.Fatalf("backed off PTO %v, want %v", got.Sub(t0), want.Sub(t0))
		}
		// An ACK resets the backoff.
		send(r, SpaceApp, []time.Duration{2 * time.Second}, 2)
		if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{2, 2}), 0, at(2*time.Second+100*ms), &recorder{}); err != nil {
			t.Fatal(err)
		}
		if r.PTOCount() != 0 {
			t.Errorf("PTO count %d after an ACK", r.PTOCount())
		}
	})
	t.Run("no application PTO before confirmation", func(t *testing.T) {
		r := newRecovery(true)
		sample(t, r, SpaceHandshake)
		send(r, SpaceApp, []time.Duration{time.Second}, 0)
		if got := r.LossTimeout(); !got.IsZero() {
			t.Fatalf("PTO armed at %v for unconfirmed 1-RTT data", got.Sub(t0))
		}
		send(r, SpaceHandshake, []time.Duration{2 * time.Second}, 1)
		if got, want := r.LossTimeout(), at(2*time.Second+300*ms); !got.Equal(want) {
			t.Fatalf("Handshake PTO %v, want %v (no max_ack_delay)", got.Sub(t0), want.Sub(t0))
		}
	})
	t.Run("the earliest space wins", func(t *testing.T) {
		r := newRecovery(false)
		send(r, SpaceInitial, []time.Duration{0}, 0)
		send(r, SpaceHandshake, []time.Duration{100 * ms}, 0)
		if _, space := r.OnLossTimeout(at(999*ms), &recorder{}); space != SpaceInitial {
			t.Fatalf("probes in %v", space)
		}
		// Backed off, Initial's is at 1998 ms and Handshake's at 2098.
		if got := r.LossTimeout(); !got.Equal(at(1998 * ms)) {
			t.Fatalf("PTO %v", got.Sub(t0))
		}
	})
	t.Run("a server at its amplification limit arms none", func(t *testing.T) {
		r := newRecovery(true)
		send(r, SpaceInitial, []time.Duration{0}, 0)
		r.SetAmplificationBlocked(true)
		if got := r.LossTimeout(); !got.IsZero() {
			t.Fatalf("PTO armed at %v", got.Sub(t0))
		}
		r.SetAmplificationBlocked(false)
		if got := r.LossTimeout(); !got.Equal(at(999 * ms)) {
			t.Fatalf("PTO %v, want 999ms", got.Sub(t0))
		}
	})
}

// sample takes an RTT sample of 100 ms in space: packet 0 sent at 0 and
// acknowledged at 100 ms.
func sample(t *testing.T, r *Recovery, space Space) {
	t.Helper()
	send(r, space, []time.Duration{0}, 0)
	if err := r.OnAckReceived(space, ackOf(t, [2]uint64{0, 0}), 0, at(100*ms), &recorder{}); err != nil {
		t.Fatal(err)
	}
}

func TestRecoveryAntiDeadlockProbe(t *testing.T) {
	// A client whose Initial was acknowledged at 100 ms has nothing in
	// flight, but the server may be blocked by its amplification limit:
	// the PTO (300 ms) runs from then, and asks for one packet.
	r := newRecovery(false)
	sample(t, r, SpaceInitial)
	if got, want := r.LossTimeout(), at(400*ms); !got.Equal(want) {
		t.Fatalf("anti-deadlock PTO %v, want %v", got.Sub(t0), want.Sub(t0))
	}
	if probes, space := r.OnLossTimeout(at(400*ms), &recorder{}); probes != 1 || space != SpaceInitial {
		t.Fatalf("%d probes in %v, want 1 in Initial", probes, space)
	}
	// With Handshake keys (Initial discarded, the backoff reset) the probe
	// is a Handshake packet, timed from the last event.
	r.DiscardSpace(SpaceInitial)
	if got, want := r.LossTimeout(), at(700*ms); !got.Equal(want) {
		t.Fatalf("anti-deadlock PTO %v, want %v", got.Sub(t0), want.Sub(t0))
	}
	if probes, space := r.OnLossTimeout(at(700*ms), &recorder{}); probes != 1 || space != SpaceHandshake {
		t.Fatalf("%d probes in %v, want 1 in Handshake", probes, space)
	}
	r.SetPeerAddressValidated()
	if got := r.LossTimeout(); !got.IsZero() {
		t.Fatalf("PTO armed at %v with nothing in flight and the address validated", got.Sub(t0))
	}
	// A server never arms it.
	s := newRecovery(true)
	sample(t, s, SpaceInitial)
	if got := s.LossTimeout(); !got.IsZero() {
		t.Fatalf("server armed %v", got.Sub(t0))
	}
}

func TestRecoveryPersistentCongestion(t *testing.T) {
	// A 100 ms sample at 100 ms, then packets 1 and 2 sent `gap` apart
	// from 200 ms, 3 to 5 a millisecond after 2, and 5 acknowledged 100 ms
	// after it was sent. The new sample leaves smoothed_rtt 100 ms and
	// makes rttvar 3/4*50 = 37.5 ms, so the persistent congestion
	// duration is 3 * (100 + 4*37.5 + 25) = 825 ms. Packets 1 and 2 are
	// lost (5 >= 2+3): the window halves to 6000, or collapses to 2400
	// if they were sent more than 825 ms apart; then the ACK of 5, sent
	// before the recovery period began, grows only a collapsed window,
	// whose recovery period is over: by 1200 in slow start.
	tests := []struct {
		name       string
		gap        time.Duration
		persistent bool
		window     int
	}{
		{"1 s apart", time.Second, true, 3600},
		{"825 ms apart, not more", 825 * ms, false, 6000},
		{"500 ms apart", 500 * ms, false, 6000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecovery(true)
			r.SetHandshakeConfirmed()
			sample(t, r, SpaceApp)
			two := 200*ms + tt.gap
			send(r, SpaceApp, []time.Duration{200 * ms, two, two + ms}, 1, 2, 3, 4, 5)
			var h recorder
			if err := r.OnAckReceived(SpaceApp, ackOf(t, [2]uint64{5, 5}), 0, at(two+ms+100*ms), &h); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.lost, []uint64{1, 2}) {
				t.Fatalf("lost %v", h.lost)
			}
			st := r.Stats()
			if r.CC.Window() != tt.window || (st.Persistent == 1) != tt.persistent || st.CongestionEvents != 1 {
				t.Errorf("window %d, stats %+v; want window %d, persistent %v", r.CC.Window(), st, tt.window, tt.persistent)
			}
		})
	}
}

func TestRecoveryECN(t *testing.T) {
	r := newRecovery(true)
	sample(t, r, SpaceApp)
	r.OnECN(SpaceApp, 1, at(150*ms))
	if r.CC.Window() != 6000 || r.Stats().CongestionEvents != 1 {
		t.Fatalf("ECN-CE: window %d", r.CC.Window())
	}
	r.OnECN(SpaceApp, 1, at(200*ms)) // no new marks
	r.OnECN(SpaceApp, 2, at(250*ms)) // same recovery period: packet 0 sent before it began
	if r.CC.Window() != 6000 || r.Stats().CongestionEvents != 1 {
		t.Fatalf("window %d, want one reduction", r.CC.Window())
	}
}

// printer is a LossHandler that prints what it hears of.
type printer struct{}

func (printer) Acked(s Space, p *SentPacket) { fmt.Println("acked", s, p.Number, "frames", p.Frames) }
func (printer) Lost(s Space, p *SentPacket)  { fmt.Println("lost", s, p.Number, "frames", p.Frames) }

// An engine records each packet it sends, hands Recovery each ACK frame's
// ranges, and calls OnLossTimeout when LossTimeout comes.
func ExampleRecovery() {
	var r Recovery
	r.Init(false, 1200)
	for pn := range uint64(5) {
		if !r.CanSend() {
			break
		}
		r.OnPacketSent(SpaceInitial, SentPacket{Number: pn, Time: at(time.Duration(pn) * ms), Size: 1200,
			AckEliciting: true, InFlight: true, Frames: uint32(100 + pn)})
	}
	// An ACK of packets 3 and 4 arrives 50 ms after 4 was sent: 0 and 1
	// are 3 numbers behind, lost.
	ack, _, _ := ParseFrame([]byte{byte(FrameAck), 4, 0, 0, 1})
	if err := r.OnAckReceived(SpaceInitial, ack.AckRanges(), 0, at(54*ms), printer{}); err != nil {
		fmt.Println("close the connection:", err)
	}
	fmt.Println("in flight", r.BytesInFlight(), "RTT", r.RTT.SmoothedRTT(), "window", r.CC.Window())
	// Nothing more arrives: packet 2 is lost 9/8 RTT after it was sent.
	lossAt := r.LossTimeout()
	fmt.Println("timer at", lossAt.Sub(t0))
	r.OnLossTimeout(lossAt, printer{})
	// A client whose address the server has not validated keeps a PTO
	// armed with nothing in flight, lest both ends wait on the other.
	pto := r.LossTimeout()
	probes, space := r.OnLossTimeout(pto, printer{})
	fmt.Println(probes, space, "probe", pto.Sub(lossAt), "after the loss")
	// Output:
	// lost Initial 0 frames 100
	// lost Initial 1 frames 101
	// acked Initial 4 frames 104
	// acked Initial 3 frames 103
	// in flight 1200 RTT 50ms window 6000
	// timer at 58.25ms
	// lost Initial 2 frames 102
	// 1 Initial probe 150ms after the loss
}
