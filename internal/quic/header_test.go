package quic

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(stripSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func stripSpace(s string) string {
	out := make([]byte, 0, len(s))
	for i := range len(s) {
		if c := s[i]; c != ' ' && c != '\n' && c != '\t' {
			out = append(out, c)
		}
	}
	return string(out)
}

func TestPacketNumberRFCExamples(t *testing.T) {
	// RFC 9000 section 17.1 and appendix A.2.
	if n := PacketNumberLen(0xac5c02, 0xabe8b3); n != 2 {
		t.Errorf("PacketNumberLen(0xac5c02, 0xabe8b3) = %d, want 2", n)
	}
	if n := PacketNumberLen(0xace8fe, 0xabe8b3); n != 3 {
		t.Errorf("PacketNumberLen(0xace8fe, 0xabe8b3) = %d, want 3", n)
	}
	// RFC 9000 appendix A.3.
	if pn := DecodePacketNumber(0xa82f30ea, 0x9b32, 16); pn != 0xa82f9b32 {
		t.Errorf("DecodePacketNumber = %#x, want 0xa82f9b32", pn)
	}
}

func TestPacketNumberRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		pn      uint64
		largest int64
	}{
		{0, -1}, {1, 0}, {127, -1}, {128, -1}, {200, 72}, {201, 72},
		{0xac5c02, 0xabe8b3}, {1 << 40, 1<<40 - 1}, {1<<40 + 1<<30, 1 << 40},
		{MaxPacketNumber, MaxPacketNumber - 1},
	} {
		n := PacketNumberLen(tc.pn, tc.largest)
		wire := AppendPacketNumber(nil, tc.pn, n)
		// The receiver may have seen anything up to pn-1 since the
		// sender's largest acknowledged.
		for _, seen := range []int64{tc.largest, int64(tc.pn) - 1} {
			if got := DecodePacketNumber(seen, readPacketNumber(wire), 8*n); got != tc.pn {
				t.Errorf("pn %d in %d bytes, largest seen %d: decoded %d", tc.pn, n, seen, got)
			}
		}
	}
}

// The unprotected headers of RFC 9001 appendix A.
const (
	clientInitialHeader = "c300000001088394c8f03e5157080000449e00000002"
	serverInitialHeader = "c1000000010008f067a5502a4262b50040750001"
	retryPacket         = "ff000000010008f067a5502a4262b5746f6b656e04a265ba2eff4d829058fb3f0f2496ba"
)

func TestAppendLongHeaderRFCExamples(t *testing.T) {
	dcid := unhex(t, "8394c8f03e515708")
	scid := unhex(t, "f067a5502a4262b5")
	got := AppendLongHeader(nil, PacketInitial, dcid, nil, nil, 1182, 2, 4)
	if want := unhex(t, clientInitialHeader); !bytes.Equal(got, want) {
		t.Errorf("client Initial header\n got %x\nwant %x", got, want)
	}
	got = AppendLongHeader(nil, PacketInitial, nil, scid, nil, 117, 1, 2)
	if want := unhex(t, serverInitialHeader); !bytes.Equal(got, want) {
		t.Errorf("server Initial header\n got %x\nwant %x", got, want)
	}
}

func TestParseLongHeaderInitial(t *testing.T) {
	b := unhex(t, clientInitialHeader)
	b = append(b, make([]byte, 1182-4)...)
	h, err := ParseLongHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	if h.Type != PacketInitial || h.Version != Version1 || len(h.SrcConnID) != 0 || len(h.Token) != 0 ||
		!bytes.Equal(h.DstConnID, unhex(t, "8394c8f03e515708")) || h.Length != 1182 || h.PNOffset != 18 ||
		h.PacketLen != len(b) || PacketNumberLenOf(b[0]) != 4 {
		t.Errorf("parsed %+v", h)
	}
	if _, err := ParseLongHeader(b[:len(b)-1]); err == nil {
		t.Error("a Length past the datagram was accepted")
	}
}

func TestParseLongHeaderRetry(t *testing.T) {
	h, err := ParseLongHeader(unhex(t, retryPacket))
	if err != nil {
		t.Fatal(err)
	}
	if h.Type != PacketRetry || string(h.Token) != "token" || len(h.DstConnID) != 0 ||
		!bytes.Equal(h.SrcConnID, unhex(t, "f067a5502a4262b5")) ||
		!bytes.Equal(h.IntegrityTag, unhex(t, "04a265ba2eff4d829058fb3f0f2496ba")) {
		t.Errorf("parsed %+v", h)
	}
}

func TestParseLongHeaderOtherVersion(t *testing.T) {
	// A draft version with a 21-byte DCID: only the invariants are read.
	b := append([]byte{0xc0, 0xff, 0, 0, 0x1d, 21}, make([]byte, 21)...)
	b = append(b, 0, 0xaa, 0xbb)
	h, err := ParseLongHeader(b)
	if err != nil || h.Type != PacketOtherVersion || h.Version != 0xff00001d || len(h.DstConnID) != 21 || h.PacketLen != len(b) {
		t.Errorf("ParseLongHeader = %+v, %v", h, err)
	}
}

func TestParseLongHeaderRejects(t *testing.T) {
	long := append([]byte{0xc0, 0, 0, 0, 1, 21}, make([]byte, 40)...)
	if _, err := ParseLongHeader(long); err == nil {
		t.Error("a 21-byte connection ID was accepted in version 1")
	}
	noFixed := unhex(t, clientInitialHeader)
	noFixed[0] &^= 0x40
	if _, err := ParseLongHeader(noFixed); err == nil {
		t.Error("a zero fixed bit was accepted")
	}
	if _, err := ParseLongHeader(unhex(t, "4200bff4")); err == nil {
		t.Error("a short header was parsed as a long one")
	}
}

func TestShortHeader(t *testing.T) {
	// RFC 9001 appendix A.5: an empty connection ID, pn 654360564 in 3 bytes.
	got := AppendShortHeader(nil, false, false, nil, 654360564, 3)
	if want := unhex(t, "4200bff4"); !bytes.Equal(got, want) {
		t.Errorf("AppendShortHeader = %x, want %x", got, want)
	}
	dcid := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	b := AppendShortHeader(nil, true, true, dcid, 7, 1)
	h, err := ParseShortHeader(b, len(dcid))
	if err != nil || !h.Spin || !bytes.Equal(h.DstConnID, dcid) || h.PNOffset != 9 || !KeyPhase(b[0]) || PacketNumberLenOf(b[0]) != 1 {
		t.Errorf("ParseShortHeader(%x) = %+v, %v", b, h, err)
	}
	if _, err := ParseShortHeader(b[:5], len(dcid)); err == nil {
		t.Error("a truncated short header was accepted")
	}
}

func TestVersionNegotiation(t *testing.T) {
	b := AppendVersionNegotiation(nil, 0x3a, []byte{1, 2}, []byte{3}, Version1, 0x6b3343cf)
	v, err := ParseVersionNegotiation(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.DstConnID, []byte{1, 2}) || !bytes.Equal(v.SrcConnID, []byte{3}) || v.Len() != 2 ||
		v.Version(0) != Version1 || v.Version(1) != 0x6b3343cf {
		t.Errorf("parsed %+v", v)
	}
	if _, err := ParseVersionNegotiation(b[:len(b)-1]); err == nil {
		t.Error("a partial version was accepted")
	}
	if _, err := ParseVersionNegotiation(b[:len(b)-8]); err == nil {
		t.Error("an empty version list was accepted")
	}
}

func TestNextPacketCoalesced(t *testing.T) {
	dcid := []byte{9, 9, 9, 9}
	initial := AppendLongHeader(nil, PacketInitial, dcid, nil, []byte("tok"), 1+20, 0, 1)
	initial = append(initial, make([]byte, 20)...)
	handshake := AppendLongHeader(nil, PacketHandshake, dcid, nil, nil, 2+30, 5, 2)
	handshake = append(handshake, make([]byte, 30)...)
	early := AppendLongHeader(nil, Packet0RTT, dcid, []byte{7}, []byte("ignored"), 3+10, 1, 3)
	early = append(early, make([]byte, 10)...)
	short := AppendShortHeader(nil, false, false, dcid, 9, 1)
	short = append(short, make([]byte, 25)...)
	dgram := append(append(append(append([]byte(nil), initial...), early...), handshake...), short...)

	var got [][]byte
	for rest := dgram; len(rest) > 0; {
		p, r, err := NextPacket(rest)
		if err != nil {
			t.Fatal(err)
		}
		got, rest = append(got, p), r
	}
	want := [][]byte{initial, early, handshake, short}
	if len(got) != len(want) {
		t.Fatalf("split into %d packets, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("packet %d = %x, want %x", i, got[i], want[i])
		}
	}
	h, _ := ParseLongHeader(initial)
	if string(h.Token) != "tok" {
		t.Errorf("Initial token = %q", h.Token)
	}
	if h, _ := ParseLongHeader(early); h.Type != Packet0RTT || h.Token != nil || PacketNumberLenOf(early[0]) != 3 {
		t.Errorf("0-RTT header = %+v", h)
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add(unhex(f, clientInitialHeader+"00000000"), 8)
	f.Add(unhex(f, serverInitialHeader), 0)
	f.Add(unhex(f, retryPacket), 0)
	f.Add(unhex(f, "4200bff4"), 0)
	f.Add(AppendVersionNegotiation(nil, 0, []byte{1}, []byte{2}, Version1), 1)
	f.Fuzz(func(t *testing.T, b []byte, dcidLen int) {
		for rest := b; len(rest) > 0; {
			p, r, err := NextPacket(rest)
			if err != nil {
				break
			}
			if len(p) == 0 || len(p)+len(r) != len(rest) {
				t.Fatalf("NextPacket split %d bytes into %d and %d", len(rest), len(p), len(r))
			}
			rest = r
		}
		if h, err := ParseLongHeader(b); err == nil && h.Version == Version1 && h.Type != PacketRetry {
			if h.PNOffset > h.PacketLen || h.PacketLen > len(b) {
				t.Fatalf("offsets out of range: %+v", h)
			}
		}
		_, _ = ParseVersionNegotiation(b)
		if dcidLen >= 0 && dcidLen <= MaxConnIDLen {
			_, _ = ParseShortHeader(b, dcidLen)
		}
	})
}

func BenchmarkParseLongHeader(b *testing.B) {
	pkt := unhex(b, clientInitialHeader)
	pkt = append(pkt, make([]byte, 1182-4)...)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseLongHeader(pkt); err != nil {
			b.Fatal(err)
		}
	}
}
