//go:build linux

package datagram

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/poll"
)

var loopback = netip.MustParseAddrPort("127.0.0.1:0")

func openPair(t *testing.T) (a, b *Socket, aAddr, bAddr netip.AddrPort) {
	t.Helper()
	var err error
	if a, err = Open(loopback, Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if b, err = Open(loopback, Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if aAddr, err = a.LocalAddr(); err != nil {
		t.Fatal(err)
	}
	if bAddr, err = b.LocalAddr(); err != nil {
		t.Fatal(err)
	}
	return a, b, aAddr, bAddr
}

// fill puts n datagrams "datagram i" into out's slots, each for the address to.
func fill(out *Batch, n int, to netip.AddrPort) {
	for i := range n {
		k := copy(out.Buffer(i), fmt.Sprintf("datagram %d", i))
		out.Set(i, k, to)
	}
}

// TestSocketOnALoop is the seam end to end: a socket registered with a
// loop's poller turns readable when a batch is sent to it, and one
// recvmmsg takes the whole batch, each datagram with its sender.
func TestSocketOnALoop(t *testing.T) {
	a, b, aAddr, bAddr := openPair(t)
	p, err := poll.New(16)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Add(b.FD()); err != nil {
		t.Fatal(err)
	}

	const n = 8
	out, in := NewBatch(n, 1500), NewBatch(16, 1500)
	fill(out, n, bAddr)
	if sent, err := a.WriteBatch(out, n); err != nil || sent != n {
		t.Fatalf("WriteBatch sent %d of %d: %v", sent, n, err)
	}

	events, err := p.Wait(nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || int(events[0].FD) != b.FD() {
		t.Fatalf("events %+v, want one for the socket %d", events, b.FD())
	}
	got := 0
	deadline := time.Now().Add(5 * time.Second)
	for got < n && time.Now().Before(deadline) {
		k, err := b.ReadBatch(in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range k {
			want := fmt.Sprintf("datagram %d", got+i)
			if d := in.Datagram(i); string(d) != want {
				t.Fatalf("datagram %d is %q, want %q", got+i, d, want)
			}
			if from := in.Addr(i); from != aAddr {
				t.Fatalf("datagram %d came from %v, want %v", got+i, from, aAddr)
			}
		}
		got += k
	}
	if got != n {
		t.Fatalf("read %d of %d datagrams", got, n)
	}
	if k, err := b.ReadBatch(in); k != 0 || err != nil {
		t.Fatalf("ReadBatch on an empty socket: %d, %v; want 0, nil", k, err)
	}
}

func TestSocketIPv6(t *testing.T) {
	a, err := Open(netip.MustParseAddrPort("[::1]:0"), Options{})
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	defer a.Close()
	b, err := Open(netip.MustParseAddrPort("[::1]:0"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	aAddr, _ := a.LocalAddr()
	bAddr, _ := b.LocalAddr()
	out, in := NewBatch(1, 1500), NewBatch(4, 1500)
	fill(out, 1, bAddr)
	if sent, err := a.WriteBatch(out, 1); sent != 1 || err != nil {
		t.Fatalf("WriteBatch: %d, %v", sent, err)
	}
	waitRead(t, b, in, 1)
	if in.Addr(0) != aAddr || string(in.Datagram(0)) != "datagram 0" {
		t.Fatalf("got %q from %v, want %q from %v", in.Datagram(0), in.Addr(0), "datagram 0", aAddr)
	}
}

// waitRead reads until n datagrams are in, or fails at a deadline.
func waitRead(t *testing.T, s *Socket, in *Batch, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		k, err := s.ReadBatch(in)
		if err != nil {
			t.Fatal(err)
		}
		if k >= n {
			return
		}
		time.Sleep(time.Millisecond) // polling a socket for a datagram on its way, not synchronising
	}
	t.Fatalf("no %d datagrams within 5 s", n)
}

// TestReusePortSharesAnAddress checks that two loops' sockets may bind
// the same port with ReusePort, and not without it.
func TestReusePortSharesAnAddress(t *testing.T) {
	a, err := Open(loopback, Options{ReusePort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	addr, _ := a.LocalAddr()
	b, err := Open(addr, Options{ReusePort: true})
	if err != nil {
		t.Fatalf("a second socket with ReusePort on %v: %v", addr, err)
	}
	b.Close()
	if c, err := Open(addr, Options{}); err == nil {
		c.Close()
		t.Fatalf("a socket without ReusePort bound %v, taken", addr)
	}
}

func TestBatchMovesDatagramsWithoutAllocating(t *testing.T) {
	a, b, _, bAddr := openPair(t)
	out, in := NewBatch(4, 1500), NewBatch(4, 1500)
	fill(out, 4, bAddr)
	round := func() {
		if sent, err := a.WriteBatch(out, 4); sent != 4 || err != nil {
			t.Fatalf("WriteBatch: %d, %v", sent, err)
		}
		for got := 0; got < 4; {
			k, err := b.ReadBatch(in)
			if err != nil {
				t.Fatal(err)
			}
			got += k
		}
		_ = in.Addr(0)
	}
	round()
	if n := testing.AllocsPerRun(50, round); n != 0 {
		t.Fatalf("%.1f allocations per batch written and read, want 0", n)
	}
}

func TestProbe(t *testing.T) {
	a, _, _, _ := openPair(t)
	f := a.Probe()
	// Linux has had both since 4.18 and 5.0; the figure is logged, not
	// asserted, as a transport falls back without them.
	t.Logf("GSO %v, GRO %v", f.GSO, f.GRO)
}

func TestDatagramCutToItsSlot(t *testing.T) {
	a, b, _, bAddr := openPair(t)
	out, in := NewBatch(1, 1500), NewBatch(1, 16)
	big := bytes.Repeat([]byte("x"), 1000)
	copy(out.Buffer(0), big)
	out.Set(0, len(big), bAddr)
	if _, err := a.WriteBatch(out, 1); err != nil {
		t.Fatal(err)
	}
	waitRead(t, b, in, 1)
	if len(in.Datagram(0)) != 16 {
		t.Fatalf("a 1000-byte datagram read into a 16-byte slot gave %d bytes", len(in.Datagram(0)))
	}
}

func BenchmarkBatchRoundTrip(b *testing.B) {
	x, err := Open(loopback, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	y, err := Open(loopback, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	yAddr, _ := y.LocalAddr()
	const n = 16
	out, in := NewBatch(n, 1500), NewBatch(n, 1500)
	fill(out, n, yAddr)
	b.ReportAllocs()
	b.SetBytes(n * 10)
	for b.Loop() {
		x.WriteBatch(out, n)
		for got := 0; got < n; {
			k, _ := y.ReadBatch(in)
			got += k
		}
	}
}
