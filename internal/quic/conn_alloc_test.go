package quic

import (
	"testing"
)

// BenchmarkConnStreamRoundTrip counts allocations in the steady state: a
// client writes 1000 bytes on a stream, the datagrams go both ways, the
// server reads them. Run with -benchtime=1000x; it should report 0
// allocs/op.
func BenchmarkConnStreamRoundTrip(b *testing.B) {
	t := &testing.T{}
	p := newConnPair(t, nil)
	p.handshake()
	id, err := p.client.OpenStream(false)
	if err != nil {
		b.Fatal(err)
	}
	msg := make([]byte, 1000)
	buf := make([]byte, 4096)
	step := func() {
		if n, err := p.client.Write(id, msg); n != len(msg) || err != nil {
			b.Fatalf("write %d: %v", n, err)
		}
		for range 4 {
			p.flush()
			for ev := p.server.NextEvent(); ev.Kind != EventNone; ev = p.server.NextEvent() {
			}
			for p.server.Readable(id) > 0 {
				p.server.Read(id, buf)
			}
			p.now = p.now.Add(maxAckDelay)
			p.client.OnTimeout(p.now)
			p.server.OnTimeout(p.now)
		}
	}
	for range 200 {
		step() // warm up: buffers and lists reach their working size
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		step()
	}
}

func TestConnSteadyStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	res := testing.Benchmark(BenchmarkConnStreamRoundTrip)
	if a := res.AllocsPerOp(); a != 0 {
		t.Errorf("%d allocations per stream write and its datagrams, want 0", a)
	}
}
