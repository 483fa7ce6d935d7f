package load

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/transport"
)

// grpcMem drives an HTTP/2 session making streaming gRPC calls from
// memory, on a clock of the test's own: what the session writes is
// captured and parsed, the server's frames are made with internal/http2's
// writers, the first call's header blocks adding their fields to the
// HPACK table and later ones referring to them, as a real server's
// encoder does.
type grpcMem struct {
	l     *loop
	c     *conn
	s     *h2session
	wire  memWire
	clock int64
	req   request
	next  uint32    // the next stream id the client opens
	first [2][]byte // the first call's header block and trailers (grpc-status 0)
	warm  [2][]byte // the later calls'
	calls int
}

// memWire is a transport that takes every write and has nothing to read.
type memWire struct{ out []byte }

func (w *memWire) Read(p []byte) (int, error)  { return 0, transport.ErrWouldBlock }
func (w *memWire) Write(p []byte) (int, error) { w.out = append(w.out, p...); return len(p), nil }
func (w *memWire) Buffered() int               { return 0 }
func (w *memWire) FD() int                     { return -1 }

// quietSchedule sends nothing of its own: the test sends.
type quietSchedule struct{}

func (quietSchedule) fill(*loop, *conn, int64)       {}
func (quietSchedule) place(*conn, int)               {}
func (quietSchedule) dispatch(*loop, int64)          {}
func (quietSchedule) nextDue(*loop, int64) int64     { return -1 }
func (quietSchedule) reconnectAt(*conn, int64) int64 { return 0 }
func (quietSchedule) begin(*conn, int64)             {}
func (quietSchedule) connectFailed(*loop, int64) int { return 0 }
func (quietSchedule) exhausted(*loop) bool           { return false }

// grpcMessage is one gRPC message with body.
func grpcMessage(body string) []byte {
	m := make([]byte, 5, 5+len(body))
	binary.BigEndian.PutUint32(m[1:], uint32(len(body)))
	return append(m, body...)
}

func newGRPCMem(tb testing.TB, g GRPCStream) *grpcMem {
	l, _ := feedLoop(tb)
	l.sched = quietSchedule{}
	cfg := Config{GRPC: true, GRPCStream: g}
	s := newH2SessionFor(&cfg, 100, "http")
	m := &grpcMem{l: l, s: s, c: newConn(s), next: 1}
	m.c.state = stActive
	m.c.tr = &m.wire
	m.req = request{head: l.e.target.req.head, body: grpcMessage("ping"), kept: true}
	enc := http2.NewHeaderEncoder()
	for _, b := range []*[2][]byte{&m.first, &m.warm} {
		enc.Begin()
		enc.Field(":status", "200")
		enc.Field("content-type", "application/grpc")
		b[0] = append([]byte(nil), enc.Block()...)
		enc.Begin()
		enc.Field("grpc-status", "0")
		b[1] = append([]byte(nil), enc.Block()...)
	}
	m.c.wbuf = m.c.ses.start(m.c.wbuf[:0])
	if !l.feed(m.c, http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Value: 100}), 0) {
		tb.Fatal("the server's SETTINGS failed the connection")
	}
	s.gs.clock = func() int64 { return m.clock }
	m.c.wbuf, m.c.woff, m.c.wleft = m.c.wbuf[:0], 0, 0
	return m
}

// call opens a call at the clock's time and returns its stream id and
// the header blocks to answer it with.
func (m *grpcMem) call() (id uint32, head, trailers []byte) {
	m.l.send(m.c, &m.req, m.clock, 0, m.clock)
	m.l.write(m.c, m.clock)
	id = m.next
	m.next += 2
	b := m.warm
	if m.calls == 0 {
		b = m.first
	}
	m.calls++
	return id, b[0], b[1]
}

// frames returns the DATA frames the client wrote on stream id since the
// last call, and whether the last of them ended the stream.
func (m *grpcMem) frames(id uint32) (n int, ended bool) {
	b := m.wire.out
	for len(b) >= 9 {
		size := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if b[3] == 0 && binary.BigEndian.Uint32(b[5:9])&(1<<31-1) == id {
			n++
			ended = b[4]&1 != 0
		}
		b = b[9+size:]
	}
	m.wire.out = m.wire.out[:0]
	return n, ended
}

// feed delivers the server's frames at time at.
func (m *grpcMem) feed(tb testing.TB, at int64, frames []byte) {
	m.clock = at
	if !m.l.feed(m.c, frames, at) {
		tb.Fatal("the server's frames failed the connection")
	}
}

// TestGRPCBidiMessageLatencyByHand sends 25 calls of 4 messages at once
// and echoes message i of call k (k counted from 1) (4k+i) x 100 us
// after: 100 latencies of 0.4 ms to 10.3 ms, 0.1 ms apart, whose p99 by
// hand is the 99th of them, 10.2 ms, and whose p50, the 50th, is 5.3 ms.
func TestGRPCBidiMessageLatencyByHand(t *testing.T) {
	m := newGRPCMem(t, GRPCStream{Client: true, Server: true, Send: 4})
	msg := grpcMessage("pong")
	for k := int64(1); k <= 25; k++ {
		t0 := k * int64(time.Second)
		m.clock = t0
		id, head, trailers := m.call()
		if n, ended := m.frames(id); n != 4 || !ended {
			t.Fatalf("call %d: %d DATA frames (the last ending the stream: %v), want 4 at once, the last ending it", k, n, ended)
		}
		m.feed(t, t0, http2.AppendHeaders(nil, id, head, false, 0))
		for i := int64(0); i < 4; i++ {
			m.feed(t, t0+(4*k+i)*int64(100*time.Microsecond), http2.AppendData(nil, id, msg, false))
		}
		m.feed(t, t0+int64(11*time.Millisecond), http2.AppendHeaders(nil, id, trailers, true, 0))
	}
	g := m.l.stats.grpc
	if g == nil || g.status[grpcOK] != 25 || g.messages != 100 || g.sent != 100 {
		t.Fatalf("gRPC stats %+v, want 25 OK calls, 100 messages each way", g)
	}
	if n := g.message.TotalCount(); n != 100 || g.firstMessage.TotalCount() != 25 || g.gap.TotalCount() != 75 {
		t.Fatalf("%d message latencies, %d first messages, %d gaps; want 100, 25, 75", n, g.firstMessage.TotalCount(), g.gap.TotalCount())
	}
	for _, q := range []struct{ p, want float64 }{{99, 10200}, {50, 5300}} {
		if got := float64(g.message.ValueAtQuantile(q.p)); math.Abs(got-q.want) > q.want/100 {
			t.Errorf("p%v %v us, want %v us by hand", q.p, got, q.want)
		}
	}
}

// TestGRPCMessagesWaitTheirInterval: with an interval, each message after
// the first goes when the loop's gRPC timer fires, not before, and the
// last ends the stream.
func TestGRPCMessagesWaitTheirInterval(t *testing.T) {
	const ms = int64(time.Millisecond)
	m := newGRPCMem(t, GRPCStream{Client: true, Send: 3, Interval: 2 * time.Millisecond})
	m.clock = 10 * ms
	id, _, _ := m.call()
	for _, step := range []struct {
		at     int64
		frames int
		ended  bool
		next   int64 // the timer armed after, 0 for none
	}{
		{10 * ms, 1, false, 12 * ms},
		{11 * ms, 0, false, 12 * ms},
		{12 * ms, 1, false, 14 * ms},
		{14 * ms, 1, true, 0},
		{20 * ms, 0, false, 0},
	} {
		m.clock = step.at
		m.l.fireGRPCTimers(step.at)
		n, ended := m.frames(id)
		next, armed := m.l.gtimers.next()
		if !armed {
			next = 0
		}
		if n != step.frames || ended != step.ended || next != step.next {
			t.Fatalf("at %d ms: %d DATA frames (ending %v), timer at %d ns; want %d (%v), %d", step.at/ms, n, ended, next, step.frames, step.ended, step.next)
		}
	}
	if g := m.l.stats.grpc; g == nil || g.sent != 3 {
		t.Fatalf("gRPC stats %+v, want 3 messages sent", g)
	}
}

// TestGRPCStreamDoesNotAllocate holds a warm bidirectional call of 4
// messages, echoed one by one, to zero allocations.
func TestGRPCStreamDoesNotAllocate(t *testing.T) {
	m := newGRPCMem(t, GRPCStream{Client: true, Server: true, Send: 4})
	msg := grpcMessage("pong")
	var in []byte
	round := func() {
		id, head, trailers := m.call()
		m.frames(id)
		in = http2.AppendHeaders(in[:0], id, head, false, 0)
		for range 4 {
			in = http2.AppendData(in, id, msg, false)
		}
		in = http2.AppendHeaders(in, id, trailers, true, 0)
		m.clock += 1000
		m.l.feed(m.c, in, m.clock)
		m.c.wbuf, m.c.woff, m.c.wleft = m.c.wbuf[:0], 0, 0
	}
	for range 10 {
		round()
	}
	if allocs := testing.AllocsPerRun(200, round); allocs != 0 {
		t.Fatalf("a bidirectional call of 4 messages allocates %.1f times", allocs)
	}
	if g := m.l.stats.grpc; g.message.TotalCount() != 4*211 || g.status[grpcOK] != 211 {
		t.Fatalf("%d latencies over %d OK calls, want 4 per call over 211", g.message.TotalCount(), g.status[grpcOK])
	}
}

func TestGRPCClientStreamContentLengthIsAllItsMessages(t *testing.T) {
	base := [][2]string{{"content-type", "application/grpc"}}
	for _, tc := range []struct {
		name   string
		g      GRPCStream
		fields [][2]string
		want   string // the content-length added, "" for none
	}{
		{"a unary call adds none", GRPCStream{}, base, ""},
		{"one message adds none", GRPCStream{Client: true, Send: 1}, base, ""},
		{"five messages of 7 bytes are 35", GRPCStream{Client: true, Server: true, Send: 5}, base, "35"},
		{"a content-length given stays", GRPCStream{Client: true, Send: 5}, append(base, [2]string{"Content-Length", "9"}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.g.header(tc.fields, 7)
			added := ""
			if len(got) > len(tc.fields) {
				added = got[len(got)-1][1]
			}
			if added != tc.want {
				t.Fatalf("fields %v, want content-length %q added", got, tc.want)
			}
		})
	}
}
