package quic

import (
	"fmt"
	"testing"
	"time"
)

// FuzzConnReceive feeds arbitrary datagrams to a fresh client, a fresh
// server, and, sealed as 1-RTT packets of the peer, arbitrary frames to an
// established server (ECN on, the datagrams' codepoints drawn from the
// input, so ACK frames' ECN counts are validated too): nothing may panic.
func FuzzConnReceive(f *testing.F) {
	p := newConnPair(&testing.T{}, nil)
	first, _ := p.client.AppendDatagram(nil, p.now)
	f.Add(first)
	f.Add(frames(streamFrame(0, 0, 10, true), Frame{Type: FrameMaxData, Limit: 1 << 30}))
	f.Add(frames(Frame{Type: FrameAck, LargestAcked: 3, FirstAckRange: 2}))
	f.Add(frames(Frame{Type: FrameAckECN, LargestAcked: 3, FirstAckRange: 2, ECT0: 4, ECNCE: 1}))
	f.Add([]byte{0xc0, 0, 0, 0, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0x40, 0x20})
	f.Fuzz(func(t *testing.T, data []byte) {
		w := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("hang on %x", data)) })
		defer w.Stop()
		now := time.Unix(1_700_000_000, 0)
		cp := newConnPair(t, ecnOn)
		mark := ECN(len(data) & 3)
		cp.client.Receive(append([]byte(nil), data...), now)
		cp.client.AppendDatagram(nil, now)
		if s, err := NewServerConn(&cp.cfg, []byte{1, 2, 3, 4, 5, 6, 7, 8}, nil, now); err == nil {
			s.Receive(append([]byte(nil), data...), now)
			s.AppendDatagram(nil, now)
			s.tls.Close()
		}
		if len(data) > 0 && data[0]&1 == 1 {
			cp.handshake()
			cp.server.ReceiveECN(seal1RTT(cp.client, data, cp.now), mark, cp.now)
			cp.flush()
			cp.server.OnTimeout(cp.now.Add(time.Minute))
		}
		wantDiscardedUntouched(t)
	})
}
