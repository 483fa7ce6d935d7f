package server

import (
	"testing"
)

var wrkRequest = []byte("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\nAccept: */*\r\n\r\n")

// inMemory returns a Server set up for serving from memory, without sockets.
func inMemory(tb testing.TB, h Handler) (*Server, *Ctx) {
	s := &Server{Handler: h}
	s.cfg = s.Config.withDefaults()
	s.date = newDateClock()
	tb.Cleanup(s.date.close)
	return s, &Ctx{srv: s}
}

// TestNativePathDoesNotAllocate holds parsing a request, running a native
// handler and serializing its response to zero allocations.
func TestNativePathDoesNotAllocate(t *testing.T) {
	s, ctx := inMemory(t, hello)
	out := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(1000, func() {
		outcome, _, _ := s.nextRequest(wrkRequest, ctx, &reading{})
		if outcome != gotRequest {
			t.Fatalf("outcome %v", outcome)
		}
		out = s.serve(ctx, out[:0])
	})
	if allocs != 0 {
		t.Errorf("the native path allocates %.1f times per request, want 0", allocs)
	}
	if len(out) == 0 {
		t.Fatal("no response")
	}
}

// BenchmarkNativePath measures one request through parser, handler and
// response serializer, from memory.
func BenchmarkNativePath(b *testing.B) {
	s, ctx := inMemory(b, hello)
	out := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(wrkRequest)))
	for i := 0; i < b.N; i++ {
		s.nextRequest(wrkRequest, ctx, &reading{})
		out = s.serve(ctx, out[:0])
	}
}
