package quic

import (
	"testing"
	"time"
)

// FuzzRecoveryAck feeds OnAckReceived arbitrary ACK frames after a run of
// packets: it never panics, bytes in flight stay the sum of the packets
// still outstanding and never go negative, and each packet is resolved at
// most once.
func FuzzRecoveryAck(f *testing.F) {
	f.Add(uint8(10), uint8(0), []byte{0x02, 0x05, 0x00, 0x00, 0x02})
	f.Add(uint8(40), uint8(3), []byte{0x02, 0x20, 0x10, 0x01, 0x03, 0x00, 0x02})
	f.Add(uint8(5), uint8(1), []byte{0x03, 0x04, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01})
	f.Add(uint8(200), uint8(7), []byte{0x02, 0x40, 0xff, 0x00, 0x00, 0x40, 0xff})
	f.Fuzz(func(t *testing.T, n, skip uint8, frames []byte) {
		r := newRecovery(skip&1 == 0)
		sizes := map[uint64]int{}
		pn := uint64(0)
		for i := range int(n) {
			if skip != 0 && i%(int(skip)+1) == 0 {
				pn++ // a skipped number
			}
			size := 100 + i%1200
			inFlight := i%7 != 0
			r.OnPacketSent(SpaceApp, SentPacket{Number: pn, Time: at(time.Duration(i) * ms), Size: size, AckEliciting: inFlight, InFlight: inFlight})
			if inFlight {
				sizes[pn] = size
			}
			pn++
		}
		h := &fuzzHandler{t: t, sizes: sizes}
		now := at(time.Duration(n) * ms)
		for len(frames) > 0 {
			fr, used, err := ParseFrame(frames)
			if err != nil || used == 0 {
				return
			}
			frames = frames[used:]
			if fr.Type != FrameAck && fr.Type != FrameAckECN {
				continue
			}
			now = now.Add(10 * ms)
			_ = r.OnAckReceived(SpaceApp, fr.AckRanges(), AckDelay(fr.AckDelay, 3), now, h)
			r.OnECN(SpaceApp, fr.ECNCE, now)
			h.check(r)
			if probes, _ := r.OnLossTimeout(r.LossTimeout(), h); probes < 0 {
				t.Fatal("negative probes")
			}
			h.check(r)
		}
		r.DiscardSpace(SpaceApp)
		if r.BytesInFlight() != 0 {
			t.Fatalf("%d bytes in flight after discarding the only space", r.BytesInFlight())
		}
	})
}

// fuzzHandler checks that every packet it hears of is outstanding.
type fuzzHandler struct {
	t     *testing.T
	sizes map[uint64]int // in-flight packets outstanding
	done  map[uint64]bool
}

func (h *fuzzHandler) resolve(p *SentPacket) {
	if h.done == nil {
		h.done = map[uint64]bool{}
	}
	if h.done[p.Number] {
		h.t.Fatalf("packet %d resolved twice", p.Number)
	}
	h.done[p.Number] = true
	delete(h.sizes, p.Number)
}

func (h *fuzzHandler) Acked(_ Space, p *SentPacket) { h.resolve(p) }
func (h *fuzzHandler) Lost(_ Space, p *SentPacket)  { h.resolve(p) }

func (h *fuzzHandler) check(r *Recovery) {
	sum := 0
	for _, s := range h.sizes {
		sum += s
	}
	if r.BytesInFlight() != sum || sum < 0 {
		h.t.Fatalf("bytes in flight %d, outstanding %d", r.BytesInFlight(), sum)
	}
}
