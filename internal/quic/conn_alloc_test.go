package quic

import (
	"testing"
)

// steadyStream returns a step of the steady state: a client writes 1000
// bytes on a stream, the datagrams go both ways, the server reads them,
// the clock moves by the ACK delay; it is warmed up so that buffers and
// lists have reached their working size.
func steadyStream(tb testing.TB) func() {
	p := newConnPair(&testing.T{}, nil)
	p.handshake()
	id, err := p.client.OpenStream(false)
	if err != nil {
		tb.Fatal(err)
	}
	msg := make([]byte, 1000)
	buf := make([]byte, 4096)
	step := func() {
		if n, err := p.client.Write(id, msg); n != len(msg) || err != nil {
			tb.Fatalf("write %d: %v", n, err)
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
		step()
	}
	return step
}

// BenchmarkConnStreamRoundTrip counts allocations in the steady state; run
// with -benchtime=1000x, it should report 0 allocs/op.
func BenchmarkConnStreamRoundTrip(b *testing.B) {
	step := steadyStream(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		step()
	}
}

func TestConnSteadyStateAllocs(t *testing.T) {
	step := steadyStream(t)
	if a := testing.AllocsPerRun(500, step); a != 0 {
		t.Errorf("%v allocations per stream write and its datagrams, want 0", a)
	}
}
