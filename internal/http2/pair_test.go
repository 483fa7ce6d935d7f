package http2

import (
	"bytes"
	"testing"
)

// pair wires a ClientConn to a ServerConn in memory, both engines of this
// package, with a server application that answers every request with body.
type pair struct {
	c       *ClientConn
	s       *ServerConn
	toS     []byte
	toC     []byte
	outS    []byte // reused output buffers, so the harness allocates nothing
	outC    []byte
	body    []byte
	fields  []Field
	ended   int
	failed  int
	gotBody int64
}

func newPair(cc ClientConfig, sc ServerConfig, body []byte) *pair {
	p := &pair{c: NewClientConn(cc), s: NewServerConn(sc), body: body,
		fields: []Field{{"content-type", "text/plain"}}}
	p.toS = p.c.Start(nil)
	p.toC = p.s.Start(nil)
	p.pump()
	return p
}

// pump moves bytes both ways until neither side has anything to say.
func (p *pair) pump() {
	for len(p.toS) > 0 || len(p.toC) > 0 {
		out, n, err := p.s.Feed(p.outS[:0], p.toS)
		if err != nil {
			panic(err)
		}
		for _, e := range p.s.Events() {
			if e.Kind == ServerRequest && e.EndStream || e.Kind == ServerData && e.EndStream {
				out, _ = p.s.WriteHeaders(out, e.StreamID, 200, p.fields, len(p.body) == 0)
				if len(p.body) > 0 {
					out, _ = p.s.WriteData(out, e.StreamID, p.body, true)
				}
			}
		}
		p.toS = append(p.toS[:0], p.toS[n:]...)
		p.toC = append(p.toC, out...)
		p.outS = out

		out, n, err = p.c.Feed(p.outC[:0], p.toC)
		if err != nil {
			panic(err)
		}
		for _, e := range p.c.Events() {
			switch e.Kind {
			case EventEnd:
				p.ended++
				p.gotBody += e.BodyBytes
			case EventFailed, EventReset, EventRefused:
				p.failed++
			}
		}
		p.toC = append(p.toC[:0], p.toC[n:]...)
		p.toS = append(p.toS, out...)
		p.outC = out
	}
}

func TestClientAndServerEnginesTogether(t *testing.T) {
	tests := []struct {
		name     string
		reqBody  int
		respBody int
		streams  int
		requests int
	}{
		{"GETs on one stream at a time", 0, 13, 1, 50},
		{"GETs on 100 streams", 0, 100, 100, 1000},
		{"POSTs of 1 MB under default windows", 1 << 20, 10, 10, 20},
		{"responses of 3 MB under default windows", 0, 3 << 20, 4, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPair(ClientConfig{MaxStreams: tt.streams}, ServerConfig{}, bytes.Repeat([]byte("r"), tt.respBody))
			req := &Request{Method: "POST", Scheme: "http", Authority: "pair", Path: "/", Body: bytes.Repeat([]byte("q"), tt.reqBody)}
			opened := 0
			for p.ended+p.failed < tt.requests {
				for p.c.CanOpen() > 0 && opened < tt.requests {
					var err error
					if p.toS, _, err = p.c.Open(p.toS, req); err != nil {
						t.Fatal(err)
					}
					opened++
				}
				before := p.ended
				p.pump()
				if p.ended == before && p.failed == 0 {
					t.Fatalf("no progress: %d of %d ended", p.ended, tt.requests)
				}
			}
			if p.failed != 0 || p.gotBody != int64(tt.requests*tt.respBody) {
				t.Fatalf("%d failed, %d body bytes, want 0 and %d", p.failed, p.gotBody, tt.requests*tt.respBody)
			}
		})
	}
}

// BenchmarkEnginesRoundTrip measures a request/response cycle through both
// engines in memory, 100 streams in flight: the cost of the HTTP/2 layer
// on each side, without sockets.
func BenchmarkEnginesRoundTrip(b *testing.B) {
	p := newPair(ClientConfig{MaxStreams: 100}, ServerConfig{}, []byte("hello, world\n"))
	req := &Request{Method: "GET", Scheme: "http", Authority: "bench", Path: "/"}
	b.ReportAllocs()
	for p.ended < 1000 { // warm up the HPACK tables and buffers
		for p.c.CanOpen() > 0 {
			p.toS, _, _ = p.c.Open(p.toS, req)
		}
		p.pump()
	}
	b.ResetTimer()
	start := p.ended
	for p.ended-start < b.N {
		for p.c.CanOpen() > 0 {
			p.toS, _, _ = p.c.Open(p.toS, req)
		}
		p.pump()
	}
}
