package quic

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// sampleFrames holds one frame of every type, in wire form.
func sampleFrames() []Frame {
	var ack RangeSet
	for _, pn := range []uint64{0, 1, 2, 5, 6, 9, 20, 21, 22} {
		ack.Add(pn)
	}
	ackFrame, _, _ := ParseFrame(AppendAckFrame(nil, &ack, 42, nil, 0))
	ecnFrame, _, _ := ParseFrame(AppendAckFrame(nil, &ack, 7, &ECNCounts{1, 2, 3}, 0))
	token := bytes.Repeat([]byte{0xab}, resetTokenLen)
	return []Frame{
		{Type: FramePadding, Count: 3},
		{Type: FramePing},
		ackFrame,
		ecnFrame,
		{Type: FrameResetStream, StreamID: 4, Code: 0x10c, FinalSize: 1 << 20},
		{Type: FrameStopSending, StreamID: 8, Code: 0x101},
		{Type: FrameCrypto, Offset: 100, Data: []byte("client hello")},
		{Type: FrameNewToken, Data: []byte("tok")},
		{Type: FrameStream, StreamID: 0, Data: []byte("GET /"), HasLength: true},
		{Type: FrameStream, StreamID: 3, Offset: 1 << 30, Data: []byte("tail"), Fin: true},
		{Type: FrameStream, StreamID: 7, Offset: 9, Fin: true, HasLength: true, Data: []byte{}},
		{Type: FrameMaxData, Limit: 1 << 40},
		{Type: FrameMaxStreamData, StreamID: 4, Limit: 65536},
		{Type: FrameMaxStreamsBidi, Limit: 100},
		{Type: FrameMaxStreamsUni, Limit: maxStreams},
		{Type: FrameDataBlocked, Limit: 7},
		{Type: FrameStreamDataBlocked, StreamID: 4, Limit: 9},
		{Type: FrameStreamsBlockedBidi, Limit: 10},
		{Type: FrameStreamsBlockedUni, Limit: 11},
		{Type: FrameNewConnectionID, SequenceNumber: 3, RetirePriorTo: 1, ConnID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, ResetToken: token},
		{Type: FrameRetireConnectionID, SequenceNumber: 2},
		{Type: FramePathChallenge, Data: []byte("12345678")},
		{Type: FramePathResponse, Data: []byte("87654321")},
		{Type: FrameConnectionClose, Code: uint64(ProtocolViolation), FrameType: 0x08, Data: []byte("bad stream")},
		{Type: FrameConnectionCloseApp, Code: 0x100, Data: []byte{}},
		{Type: FrameHandshakeDone},
	}
}

// sameFrame compares frames, a nil and an empty slice being equal.
func sameFrame(a, b Frame) bool {
	for _, p := range []*[]byte{&a.Data, &b.Data, &a.ConnID, &b.ConnID, &a.ResetToken, &b.ResetToken, &a.ackRanges, &b.ackRanges} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	return reflect.DeepEqual(a, b)
}

func TestFrameRoundTrip(t *testing.T) {
	for _, want := range sampleFrames() {
		wire := AppendFrame(nil, &want)
		got, n, err := ParseFrame(wire)
		if err != nil || n != len(wire) || !sameFrame(got, want) {
			t.Errorf("type %#x: %x parsed to %+v, %d, %v; want %+v", want.Type, wire, got, n, err, want)
		}
		for i := range len(wire) {
			if want.Type == FramePadding || (want.Type == FrameStream && !want.HasLength) {
				break // these run to the end of what they are given
			}
			if _, _, err := ParseFrame(wire[:i]); err == nil {
				t.Errorf("type %#x: truncated to %d of %d bytes accepted", want.Type, i, len(wire))
			}
		}
	}
}

func TestParseFrameRFC9001Payloads(t *testing.T) {
	// The server Initial's payload (RFC 9001 appendix A.3): an ACK of
	// packet 0, then a CRYPTO frame with the ServerHello.
	p := unhex(t, rfcServerInitialPayload)
	ack, n, err := ParseFrame(p)
	if err != nil || ack.Type != FrameAck || ack.LargestAcked != 0 || ack.AckRangeCount != 0 {
		t.Fatalf("ACK = %+v, %v", ack, err)
	}
	crypto, m, err := ParseFrame(p[n:])
	if err != nil || crypto.Type != FrameCrypto || crypto.Offset != 0 || len(crypto.Data) != 0x5a || n+m != len(p) {
		t.Fatalf("CRYPTO = %+v, %d, %v", crypto, m, err)
	}
	// The client Initial's: a CRYPTO frame of 241 bytes, then PADDING as
	// one run.
	c := make([]byte, 1162)
	copy(c, unhex(t, rfcClientInitialCrypto))
	crypto, n, err = ParseFrame(c)
	if err != nil || len(crypto.Data) != 0xf1 || crypto.Data[0] != 0x01 {
		t.Fatalf("client CRYPTO = %d bytes, %v", len(crypto.Data), err)
	}
	pad, m, err := ParseFrame(c[n:])
	if err != nil || pad.Type != FramePadding || m != len(c)-n || pad.Count != m {
		t.Errorf("PADDING = %+v, %d, %v", pad, m, err)
	}
}

func TestParseFrameErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		wire []byte
	}{
		{"unknown type", []byte{0x1f}},
		{"unknown long type", []byte{0x40, 0x21}},
		{"ACK first range below 0", []byte{0x02, 5, 0, 0, 6}},
		{"ACK gap below 0", []byte{0x02, 10, 0, 1, 2, 7, 0}},
		{"ACK range below 0", []byte{0x02, 10, 0, 1, 2, 1, 6}},
		{"MAX_STREAMS above 2^60", AppendVarint([]byte{0x12}, maxStreams+1)},
		{"STREAMS_BLOCKED above 2^60", AppendVarint([]byte{0x17}, maxStreams+1)},
		{"empty NEW_TOKEN", []byte{0x07, 0}},
		{"NEW_CONNECTION_ID length 0", append([]byte{0x18, 1, 0, 0}, make([]byte, 16)...)},
		{"NEW_CONNECTION_ID length 21", append([]byte{0x18, 1, 0, 21}, make([]byte, 37)...)},
		{"Retire Prior To above sequence", append([]byte{0x18, 1, 2, 1, 9}, make([]byte, 16)...)},
		{"STREAM past 2^62", append(AppendVarint([]byte{0x0e, 0}, MaxVarint), 1, 'x')},
		{"CRYPTO past 2^62", append(AppendVarint([]byte{0x06}, MaxVarint), 1, 'x')},
	} {
		_, _, err := ParseFrame(tc.wire)
		var te *TransportError
		if !errors.As(err, &te) || te.Code != FrameEncodingError {
			t.Errorf("%s: %x gave %v, want a FRAME_ENCODING_ERROR", tc.name, tc.wire, err)
		}
	}
}

func TestAckRangesReader(t *testing.T) {
	var s RangeSet
	for _, pn := range []uint64{1, 2, 3, 7, 10, 11, 15} {
		s.Add(pn)
	}
	f, _, err := ParseFrame(AppendAckFrame(nil, &s, 0, nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{{15, 15}, {10, 11}, {7, 7}, {1, 3}}
	r := f.AckRanges()
	for i, w := range want {
		lo, hi, ok := r.Next()
		if !ok || lo != w.Lo || hi != w.Hi {
			t.Errorf("range %d = %d-%d %v, want %d-%d", i, lo, hi, ok, w.Lo, w.Hi)
		}
	}
	if _, _, ok := r.Next(); ok {
		t.Error("a range after the last")
	}
	g, _, _ := ParseFrame(AppendAckFrame(nil, &s, 0, nil, 2))
	if g.AckRangeCount != 1 || g.LargestAcked != 15 {
		t.Errorf("maxRanges 2: %+v", g)
	}
}

func TestFrameAllowedIn(t *testing.T) {
	for _, tc := range []struct {
		t    FrameType
		p    PacketType
		want bool
	}{
		{FrameCrypto, PacketInitial, true}, {FrameCrypto, Packet0RTT, false},
		{FrameAck, PacketHandshake, true}, {FrameStream, PacketInitial, false},
		{FrameStream, Packet0RTT, true}, {FrameHandshakeDone, Packet1RTT, true},
		{FrameHandshakeDone, PacketHandshake, false}, {FrameConnectionClose, PacketInitial, true},
		{FrameConnectionCloseApp, PacketInitial, false}, {FramePathResponse, Packet0RTT, false},
		{FramePadding, Packet0RTT, true},
	} {
		if got := tc.t.AllowedIn(tc.p); got != tc.want {
			t.Errorf("%#x in %d = %v, want %v", tc.t, tc.p, got, tc.want)
		}
	}
	if FrameAck.AckEliciting() || !FramePing.AckEliciting() {
		t.Error("AckEliciting wrong for ACK or PING")
	}
}

func TestTransportErrorString(t *testing.T) {
	for _, tc := range []struct {
		c    TransportErrorCode
		want string
	}{
		{FrameEncodingError, "FRAME_ENCODING_ERROR"}, {CryptoErrorBase + 42, "CRYPTO_ERROR(42)"}, {0x4242, "0x4242"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%d.String() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func FuzzParseFrame(f *testing.F) {
	for _, fr := range sampleFrames() {
		f.Add(AppendFrame(nil, &fr))
	}
	f.Add(unhex(f, rfcServerInitialPayload))
	f.Fuzz(func(t *testing.T, b []byte) {
		for rest := b; len(rest) > 0; {
			fr, n, err := ParseFrame(rest)
			if err != nil {
				return
			}
			if n <= 0 || n > len(rest) {
				t.Fatalf("ParseFrame(%x) consumed %d", rest, n)
			}
			wire := AppendFrame(nil, &fr)
			again, m, err := ParseFrame(wire)
			if err != nil || m != len(wire) || !sameFrame(again, fr) {
				t.Fatalf("%x parsed to %+v, appended as %x, reparsed to %+v, %v", rest[:n], fr, wire, again, err)
			}
			for r := fr.AckRanges(); fr.Type == FrameAck || fr.Type == FrameAckECN; {
				lo, hi, ok := r.Next()
				if !ok {
					break
				}
				if lo > hi || hi > fr.LargestAcked {
					t.Fatalf("ACK range %d-%d of %+v", lo, hi, fr)
				}
			}
			rest = rest[n:]
		}
	})
}

func BenchmarkParseFrameStream(b *testing.B) {
	wire := AppendStreamFrame(nil, 4, 1<<20, make([]byte, 1100), false, true)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseFrame(wire); err != nil {
			b.Fatal(err)
		}
	}
}
