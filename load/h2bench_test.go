package load

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// h2Mem drives an HTTP/2 session from memory: the server's side is frames
// made with internal/http2's writers, the first response adding its fields
// to the HPACK table and later ones referring to them, as a real server's
// encoder does.
type h2Mem struct {
	l           *loop
	c           *conn
	next        uint32 // the next stream id the client opens
	first, warm []byte // the response header blocks
	sentFirst   bool
	in          []byte // the server's frames of one round
	// take returns the next request to send: the run's one request, or a
	// Source's from a batch.
	take func() *request
}

func newH2Mem(tb testing.TB, streams int) *h2Mem {
	l, _ := feedLoop(tb)
	c := newConn(newH2Session(streams, "http"))
	c.state = stActive
	enc := http2.NewHeaderEncoder()
	block := func() []byte {
		enc.Begin()
		enc.Field(":status", "200")
		enc.Field("content-type", "text/plain; charset=utf-8")
		enc.Field("content-length", "10")
		return bytes.Clone(enc.Block())
	}
	m := &h2Mem{l: l, c: c, next: 1}
	m.take = func() *request { return &l.e.target.req }
	m.first, m.warm = block(), block()
	c.wbuf = c.ses.start(c.wbuf[:0])
	if !l.feed(c, http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Value: 1000}), 0) {
		tb.Fatal("the server's SETTINGS failed the connection")
	}
	return m
}

// round sends n requests and feeds their responses, split at split bytes
// (0: in one read).
func (m *h2Mem) round(n int, split int, now int64) {
	l, c := m.l, m.c
	c.wbuf, c.woff, c.wleft = c.wbuf[:0], 0, 0 // as if written
	m.in = m.in[:0]
	for range n {
		l.send(c, m.take(), now, 0, now)
		block := m.warm
		if !m.sentFirst {
			block, m.sentFirst = m.first, true
		}
		m.in = http2.AppendHeaders(m.in, m.next, block, false, 0)
		m.in = http2.AppendData(m.in, m.next, []byte("Hello, Go!"), true)
		m.next += 2
	}
	c.wbuf, c.woff, c.wleft = c.wbuf[:0], 0, 0
	if split > 0 && split < len(m.in) {
		l.feed(c, m.in[:split], now+1000)
		l.feed(c, m.in[split:], now+2000)
		return
	}
	l.feed(c, m.in, now+2000)
}

// TestHTTP2PathDoesNotAllocate holds HTTP/2's request and response path to
// zero allocations once warm: one stream at a time, a frame split over two
// reads, and 100 streams at once.
func TestHTTP2PathDoesNotAllocate(t *testing.T) {
	m := newH2Mem(t, 100)
	now := int64(1e9)
	allocs := testing.AllocsPerRun(1000, func() {
		m.round(1, 0, now)
		m.round(1, 13, now)
		m.round(100, 0, now)
		now += 1e6
	})
	if allocs != 0 {
		t.Errorf("the HTTP/2 path allocates %.1f times per run, want 0", allocs)
	}
	if s := m.l.stats; s.requests < 1000*102 || s.status[200] != s.requests || m.c.inflight() != 0 {
		t.Fatalf("requests %d (200s %d), in flight %d: the responses were not matched", s.requests, s.status[200], m.c.inflight())
	}
}

// BenchmarkHTTP2Path measures one request and its response through the
// HTTP/2 session, from l.send to the latency recorded, at 1 and 100
// streams per round.
func BenchmarkHTTP2Path(b *testing.B) {
	for _, streams := range []int{1, 100} {
		b.Run(map[int]string{1: "streams=1", 100: "streams=100"}[streams], func(b *testing.B) {
			m := newH2Mem(b, streams)
			m.round(streams, 0, 0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += streams {
				m.round(streams, 0, int64(i))
			}
		})
	}
}

// replayBatch stages n varied requests, as a Source's would come: a path
// and a query per request, a request id field, every fourth one a POST
// with a body, and returns a take that cycles through them from the batch,
// as recordedSchedule takes them.
func replayBatch(n int) func() *request {
	b := &batch{}
	for i := range n {
		r := http1.Request{Target: fmt.Sprintf("/users/%d?page=%d", i, i%7), Host: "test", UserAgent: "gust",
			Header: [][2]string{{"Accept", "*/*"}, {"X-Request-Id", strconv.Itoa(1e6 + i)}}}
		if i%4 == 3 {
			r.Method, r.Body = "POST", []byte(fmt.Sprintf(`{"user":%d}`, i))
		}
		var h RequestHead
		http1.BuildHead(&h, &r, nil)
		b.heads.Add(&h, r.Body)
		b.reqs = append(b.reqs, batchReq{})
	}
	var req request
	return func() *request {
		b.take(&req)
		b.next = (b.next + 1) % len(b.reqs)
		return &req
	}
}

// TestHTTP2ReplayDoesNotAllocate holds a replay over HTTP/2 to zero
// allocations per request once warm: requests that differ in path, query,
// fields and body are HPACK-encoded from their heads (no HTTP/1.1 text
// parsed back), whether they repeat (64 of them: their fields are indexed)
// or not (4096: past the interning budget they go out as literals).
func TestHTTP2ReplayDoesNotAllocate(t *testing.T) {
	for _, n := range []int{64, 4096} {
		t.Run(fmt.Sprintf("%d distinct requests", n), func(t *testing.T) {
			m := newH2Mem(t, 100)
			m.take = replayBatch(n)
			now := int64(1e9)
			for range 2 * n {
				m.round(1, 0, now) // warm up: the table, the interned strings, the bodies' buffers
			}
			allocs := testing.AllocsPerRun(1000, func() {
				m.round(1, 0, now)
				m.round(10, 0, now)
				now += 1e6
			})
			if allocs != 0 {
				t.Errorf("a replay over HTTP/2 allocates %.2f times per 11 requests, want 0", allocs)
			}
			if s := m.l.stats; s.status[200] != s.requests || m.c.inflight() != 0 {
				t.Fatalf("requests %d (200s %d), in flight %d: the responses were not matched", s.requests, s.status[200], m.c.inflight())
			}
		})
	}
}

// BenchmarkHTTP2Replay measures one varied request (see replayBatch) and
// its response through the HTTP/2 session, 10 streams per round; its
// allocs/op is the figure that matters: 0.
func BenchmarkHTTP2Replay(b *testing.B) {
	for _, n := range []int{64, 4096} {
		b.Run(fmt.Sprintf("distinct=%d", n), func(b *testing.B) {
			m := newH2Mem(b, 10)
			m.take = replayBatch(n)
			for i := 0; i < 2*n; i += 10 {
				m.round(10, 0, int64(i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += 10 {
				m.round(10, 0, int64(i))
			}
		})
	}
}
