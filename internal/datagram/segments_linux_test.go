//go:build linux

package datagram

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// Datagrams sent as one GSO buffer arrive as the same datagrams: on
// loopback with GRO on, as one coalesced slot that Segment splits; the
// boundaries and bytes are the ones sent, the short last one included.
func TestSegmentsGSOToGRO(t *testing.T) {
	a, b, _, bAddr := openPair(t)
	if f := a.Probe(); !f.GSO || !f.GRO {
		t.Skipf("the kernel lacks UDP GSO or GRO: %+v", f)
	}
	if err := unix.Connect(a.FD(), &unix.SockaddrInet4{Port: int(bAddr.Port()), Addr: bAddr.Addr().As4()}); err != nil {
		t.Fatal(err)
	}
	if err := EnableGRO(b.FD()); err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	g := NewSegments(1200)
	for i := range 11 {
		size := 1000
		if i == 10 {
			size = 300 // a shorter last one ends the send
		}
		d := bytes.Repeat([]byte{byte('a' + i)}, size)
		if !g.Fits(len(d)) {
			t.Fatalf("datagram %d does not fit", i)
		}
		g.Append(d)
		want = append(want, d)
	}
	if g.Fits(1000) || g.Fits(10) {
		t.Error("a datagram fits after the short last one")
	}
	if ok, err := a.WriteSegments(g); !ok || err != nil {
		t.Fatalf("WriteSegments: %v %v", ok, err)
	}
	in := NewBatch(8, 65535).WithSegments()
	var got [][]byte
	coalesced := 0
	for len(got) < len(want) {
		n, err := b.ReadBatch(in)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("got %d datagrams of %d, then nothing", len(got), len(want))
		}
		for i := range n {
			d, seg := in.Datagram(i), in.Segment(i)
			if seg == 0 {
				seg = len(d)
			} else {
				coalesced++
			}
			for len(d) > 0 {
				k := min(seg, len(d))
				got = append(got, append([]byte(nil), d[:k]...))
				d = d[k:]
			}
		}
	}
	t.Logf("%d datagrams received, %d slots coalesced by GRO", len(got), coalesced)
	if len(got) != len(want) {
		t.Fatalf("%d datagrams, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("datagram %d: %d bytes of %q, want %d of %q", i, len(got[i]), got[i][:1], len(want[i]), want[i][:1])
		}
	}
}

// As many full datagrams as Fits admits go out in one send: the kernel
// refuses a GSO send whose total passes a UDP datagram's 64 KiB, so
// Fits must stop before it.
func TestSegmentsFitOneSend(t *testing.T) {
	a, _, _, bAddr := openPair(t)
	if f := a.Probe(); !f.GSO {
		t.Skipf("the kernel lacks UDP GSO: %+v", f)
	}
	if err := unix.Connect(a.FD(), &unix.SockaddrInet4{Port: int(bAddr.Port()), Addr: bAddr.Addr().As4()}); err != nil {
		t.Fatal(err)
	}
	g := NewSegments(2048)
	d := bytes.Repeat([]byte{'x'}, 1452)
	for g.Fits(len(d)) {
		g.Append(d)
	}
	if ok, err := a.WriteSegments(g); err != nil {
		t.Fatalf("WriteSegments of %d datagrams of %d bytes: %v %v", g.Len(), len(d), ok, err)
	}
}
