package quic

import (
	"testing"
	"time"
)

func TestSentListWrapsAndGrows(t *testing.T) {
	var l sentList
	l.grow()
	// Push and drop so the ring wraps, then outgrow it while wrapped.
	next := uint64(0)
	for range 50 {
		l.push(SentPacket{Number: next})
		next += 2 // every other number skipped
	}
	for range 40 {
		l.at(0).state = sentAcked
		l.popDone()
	}
	for range 100 {
		l.push(SentPacket{Number: next})
		next += 2
	}
	if l.len() != 110 || len(l.ring) != 128 {
		t.Fatalf("len %d, ring %d", l.len(), len(l.ring))
	}
	for i := range l.len() {
		if want := uint64(80 + 2*i); l.at(i).p.Number != want {
			t.Fatalf("entry %d is %d, want %d", i, l.at(i).p.Number, want)
		}
	}
	tests := []struct {
		lo, hi uint64
		i, j   int
	}{
		{0, 79, 0, 0},  // below the oldest
		{80, 80, 0, 1}, // the oldest
		{81, 81, 1, 1}, // a skipped number
		{81, 85, 1, 3}, // 82 and 84
		{298, 400, 109, 110},
		{0, 1<<64 - 1, 0, 110},
	}
	for _, tt := range tests {
		if i, j := l.span(tt.lo, tt.hi); i != tt.i || j != tt.j {
			t.Errorf("span(%d, %d) = %d, %d, want %d, %d", tt.lo, tt.hi, i, j, tt.i, tt.j)
		}
	}
}

func TestSentListTrimsPacketsNotInFlight(t *testing.T) {
	var l sentList
	l.push(SentPacket{Number: 0, InFlight: true})
	for pn := range uint64(maxSentPackets + 10) {
		l.push(SentPacket{Number: pn + 1})
	}
	l.trim()
	if l.len() != maxSentPackets+11 {
		t.Fatalf("an in-flight packet at the front was trimmed: len %d", l.len())
	}
	l.at(0).state = sentLost
	l.popDone()
	l.trim()
	if l.len() != maxSentPackets || l.at(0).p.Number != 11 {
		t.Fatalf("len %d, oldest %d; want %d, 11", l.len(), l.at(0).p.Number, maxSentPackets)
	}
}

// countHandler counts what it hears of, allocating nothing.
type countHandler struct{ acked, lost int }

func (h *countHandler) Acked(Space, *SentPacket) { h.acked++ }
func (h *countHandler) Lost(Space, *SentPacket)  { h.lost++ }

// steadyState sends packet pn at pn ms and acknowledges pn-1 with the
// ACK a 1 ms path would bring, except every 16th packet, which a
// later ACK's packet threshold declares lost.
func steadyState(r *Recovery, h *countHandler, pn uint64) {
	now := t0.Add(time.Duration(pn) * time.Millisecond)
	r.OnPacketSent(SpaceApp, SentPacket{Number: pn, Time: now, Size: 1200, AckEliciting: true, InFlight: true, Frames: uint32(pn)})
	if pn == 0 || (pn-1)%16 == 0 {
		return
	}
	ack := AckRangeReader{hi: pn - 1, next: pn - 1, first: true}
	if err := r.OnAckReceived(SpaceApp, ack, 0, now, h); err != nil {
		panic(err)
	}
}

func TestSentSteadyStateAllocatesNothing(t *testing.T) {
	r := newRecovery(true)
	var h countHandler
	pn := uint64(0)
	for ; pn < 1000; pn++ {
		steadyState(r, &h, pn)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		steadyState(r, &h, pn)
		pn++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per packet", allocs)
	}
	if h.lost == 0 || h.acked == 0 {
		t.Errorf("acked %d, lost %d: the workload does not exercise both", h.acked, h.lost)
	}
}

// BenchmarkSentPacket sends, acknowledges and loses packets as
// steadyState does; run with -benchtime=10000x to see 0 allocs/op.
func BenchmarkSentPacket(b *testing.B) {
	r := newRecovery(true)
	var h countHandler
	b.ReportAllocs()
	for pn := range uint64(b.N) {
		steadyState(r, &h, pn)
	}
}
