package http2

import (
	"bytes"
	"testing"

	"golang.org/x/net/http2/hpack"
)

// memServer answers every request HEADERS frame with a 200, content-length
// and a body, in memory. Its first response adds its fields to the HPACK
// table; the later ones are the same fields as table references, as a real
// server's encoder sends them.
type memServer struct {
	r           Reader
	first, warm []byte
	body        []byte
	sent        bool
	out         []byte
}

func newMemServer(body []byte) *memServer {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	fields := []hpack.HeaderField{{Name: ":status", Value: "200"}, {Name: "content-type", Value: "text/plain"},
		{Name: "content-length", Value: "13"}}
	s := &memServer{body: body}
	for _, f := range fields {
		enc.WriteField(f)
	}
	s.first = bytes.Clone(buf.Bytes())
	buf.Reset()
	for _, f := range fields {
		enc.WriteField(f)
	}
	s.warm = bytes.Clone(buf.Bytes())
	return s
}

// serve reads the client's bytes and appends the responses to s.out. It
// skips the preface and everything but the END_HEADERS of requests.
func (s *memServer) serve(in []byte) {
	if bytes.HasPrefix(in, []byte(ClientPreface)) {
		in = in[len(ClientPreface):]
		s.out = AppendSettings(s.out, Setting{SettingMaxConcurrentStreams, 1000})
	}
	for len(in) > 0 {
		f, n, err := s.r.Next(in)
		if err != nil || n == 0 {
			panic("memServer: bad client bytes")
		}
		in = in[n:]
		if f.Header.Type == FrameHeaders && f.Header.Flags.Has(FlagEndStream) {
			block := s.warm
			if !s.sent {
				block, s.sent = s.first, true
			}
			s.out = AppendHeaders(s.out, f.Header.StreamID, block, false, 0)
			s.out = AppendData(s.out, f.Header.StreamID, s.body, true)
		}
	}
}

// BenchmarkClientRoundTrip measures one request/response cycle through the
// client engine against an in-memory server, streams requests in flight at
// once: Open, the server's answer, Feed, events.
func BenchmarkClientRoundTrip(b *testing.B) {
	for _, streams := range []int{1, 100} {
		b.Run(map[int]string{1: "streams=1", 100: "streams=100"}[streams], func(b *testing.B) {
			c := NewClientConn(ClientConfig{MaxStreams: streams})
			srv := newMemServer([]byte("hello, world\n"))
			req := &Request{Method: "GET", Scheme: "http", Authority: "bench.local", Path: "/index.html",
				Header: []Field{{"user-agent", "gust"}, {"accept", "*/*"}}}
			out := c.Start(nil)
			srv.serve(out)
			out, _, _ = c.Feed(out[:0], srv.out)
			srv.out = srv.out[:0]
			done := 0
			b.ReportAllocs()
			b.ResetTimer()
			for done < b.N {
				out = out[:0]
				for c.CanOpen() > 0 {
					var err error
					if out, _, err = c.Open(out, req); err != nil {
						b.Fatal(err)
					}
				}
				srv.serve(out)
				var n int
				var err error
				out, n, err = c.Feed(out[:0], srv.out)
				if err != nil || n != len(srv.out) {
					b.Fatalf("Feed: %v, %d of %d", err, n, len(srv.out))
				}
				srv.out = srv.out[:0]
				if len(out) > 0 {
					srv.serve(out) // WINDOW_UPDATEs
				}
				for _, e := range c.Events() {
					if e.Kind == EventEnd {
						if e.Status != 200 || e.BodyBytes != 13 {
							b.Fatalf("%+v", e)
						}
						done++
					}
				}
			}
		})
	}
}

// TestClientRoundTripAllocatesNothing is the benchmark's claim as a test:
// after warm-up a request/response cycle allocates nothing.
func TestClientRoundTripAllocatesNothing(t *testing.T) {
	c := NewClientConn(ClientConfig{MaxStreams: 10})
	srv := newMemServer([]byte("hello, world\n"))
	req := &Request{Method: "POST", Scheme: "http", Authority: "a", Path: "/", Body: []byte("payload"), Header: []Field{{"x", "y"}}}
	req.Method = "GET"
	req.Body = nil
	out := c.Start(nil)
	srv.serve(out)
	out, _, _ = c.Feed(out[:0], srv.out)
	srv.out = srv.out[:0]
	cycle := func() {
		out = out[:0]
		for c.CanOpen() > 0 {
			out, _, _ = c.Open(out, req)
		}
		srv.serve(out)
		out, _, _ = c.Feed(out[:0], srv.out)
		srv.out = srv.out[:0]
		if len(out) > 0 {
			srv.serve(out)
		}
		srv.out = srv.out[:0]
	}
	for i := 0; i < 10; i++ {
		cycle()
	}
	if a := testing.AllocsPerRun(200, cycle); a != 0 {
		t.Fatalf("%v allocations per cycle of 10 requests, want 0", a)
	}
}

// BenchmarkReader measures parsing a DATA frame in place.
func BenchmarkReader(b *testing.B) {
	frame := AppendData(nil, 1, make([]byte, 1024), false)
	var r Reader
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, n, err := r.Next(frame); n != len(frame) || err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewServerConn reports what an idle connection costs the server
// engine: B/op is its memory after the client preface and SETTINGS.
func BenchmarkNewServerConn(b *testing.B) {
	in := append([]byte(ClientPreface), AppendSettings(nil)...)
	out := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		s := NewServerConn(ServerConfig{})
		out = s.Start(out[:0])
		if _, _, err := s.Feed(out[:0], in); err != nil {
			b.Fatal(err)
		}
	}
}
