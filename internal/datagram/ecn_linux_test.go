//go:build linux

package datagram

import (
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// connect connects s to the address to.
func connect(s *Socket, to netip.AddrPort) error {
	if to.Addr().Is4() {
		return unix.Connect(s.FD(), &unix.SockaddrInet4{Port: int(to.Port()), Addr: to.Addr().As4()})
	}
	return unix.Connect(s.FD(), &unix.SockaddrInet6{Port: int(to.Port()), Addr: to.Addr().As16()})
}

// readAll reads datagrams into in until want have come or a deadline
// passes, and returns each one's ECN codepoint in order.
func readAll(t *testing.T, s *Socket, in *Batch, want int) []uint8 {
	t.Helper()
	var marks []uint8
	deadline := time.Now().Add(5 * time.Second)
	for len(marks) < want && time.Now().Before(deadline) {
		k, err := s.ReadBatch(in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range k {
			n := 1
			if seg := in.Segment(i); seg > 0 {
				n = (len(in.Datagram(i)) + seg - 1) / seg
			}
			for range n {
				marks = append(marks, in.ECN(i))
			}
		}
		if k == 0 {
			time.Sleep(time.Millisecond) // nothing waiting yet: poll again until the deadline
		}
	}
	if len(marks) != want {
		t.Fatalf("read %d datagrams, want %d", len(marks), want)
	}
	return marks
}

// TestECNCodepointsCrossLoopback: every codepoint set on a datagram sent
// (through sendmmsg and through a GSO send) is the one its reader gets,
// over IPv4 and IPv6; a socket that did not ask for them reads 0.
func TestECNCodepointsCrossLoopback(t *testing.T) {
	for _, local := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(local, func(t *testing.T) {
			addr := netip.MustParseAddrPort(local)
			a, err := Open(addr, Options{})
			if err != nil {
				t.Skipf("no %s here: %v", local, err)
			}
			defer a.Close()
			b, err := Open(addr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if !b.Probe().ECN {
				t.Skip("the kernel does not hand ECN codepoints to readers")
			}
			bAddr, _ := b.LocalAddr()
			in := NewBatch(16, 65535)

			// Before EnableECN the reader sees none.
			out := NewBatch(4, 1500)
			fill(out, 1, bAddr)
			out.SetECN(0, 2)
			if _, err := a.WriteBatch(out, 1); err != nil {
				t.Fatal(err)
			}
			if m := readAll(t, b, in, 1); m[0] != 0 {
				t.Fatalf("codepoint %d read without EnableECN", m[0])
			}

			if err := EnableECN(b.FD()); err != nil {
				t.Fatal(err)
			}
			fill(out, 4, bAddr)
			want := []uint8{0, 1, 2, 3}
			for i, m := range want {
				out.SetECN(i, m)
			}
			if sent, err := a.WriteBatch(out, 4); err != nil || sent != 4 {
				t.Fatalf("WriteBatch sent %d: %v", sent, err)
			}
			got := readAll(t, b, in, 4)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("codepoints %v, want %v", got, want)
				}
			}
			// Set resets a slot's codepoint: a reused batch sends none
			// unless it is given again.
			fill(out, 1, bAddr)
			a.WriteBatch(out, 1)
			if m := readAll(t, b, in, 1); m[0] != 0 {
				t.Fatalf("codepoint %d left from the slot's last use", m[0])
			}

			// A GSO send carries one codepoint for all its datagrams.
			if !a.Probe().GSO {
				return
			}
			c, err := Open(addr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := connect(c, bAddr); err != nil {
				t.Fatal(err)
			}
			g := NewSegments(1200)
			g.SetECN(2)
			for range 3 {
				g.Append(make([]byte, 1200))
			}
			if ok, err := c.WriteSegments(g); !ok || err != nil {
				t.Fatalf("WriteSegments: %v %v", ok, err)
			}
			for i, m := range readAll(t, b, in, 3) {
				if m != 2 {
					t.Fatalf("GSO datagram %d: codepoint %d, want 2", i, m)
				}
			}
		})
	}
}

// TestECNToAMappedIPv4Peer: an IPv6 socket (a server's on "::") sending
// to an IPv4 peer by its mapped address gives it the codepoint too.
func TestECNToAMappedIPv4Peer(t *testing.T) {
	a, err := Open(netip.MustParseAddrPort("[::]:0"), Options{})
	if err != nil {
		t.Skipf("no IPv6 here: %v", err)
	}
	defer a.Close()
	b, err := Open(netip.MustParseAddrPort("127.0.0.1:0"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := EnableECN(b.FD()); err != nil {
		t.Skipf("no ECN codepoints for readers: %v", err)
	}
	bAddr, _ := b.LocalAddr()
	mapped := netip.AddrPortFrom(netip.AddrFrom16(bAddr.Addr().As16()), bAddr.Port())
	out, in := NewBatch(2, 1500), NewBatch(4, 1500)
	fill(out, 2, mapped)
	out.SetECN(0, 2)
	out.SetECN(1, 3)
	if sent, err := a.WriteBatch(out, 2); err != nil || sent != 2 {
		t.Fatalf("WriteBatch sent %d: %v", sent, err)
	}
	if got := readAll(t, b, in, 2); got[0] != 2 || got[1] != 3 {
		t.Fatalf("codepoints %v, want [2 3]", got)
	}
}
