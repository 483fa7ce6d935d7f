package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gust-http/gust/result"
)

// Streaming gRPC calls on HTTP/2 (Config.GRPCStream). A client-streaming
// or bidirectional call opens its stream with the first request message
// and leaves it open (internal/http2's Tunnel); the others follow with
// WriteData, the last ending the stream. A message goes once the one
// before it has left the stream's queue (its flow-control window took it)
// and, with an interval, once the interval has passed: then the loop's
// gRPC timer heap (grpctimers.go) brings the session back, no goroutine
// and no sleep. Response messages are timed as they complete: a server
// stream's first message and the gaps between them, and on a
// bidirectional call the time from sending each request message to the
// response message of the same number (the echo pattern). Nothing is
// allocated per message: a stream's send times sit in a ring made once
// for its slot.

// GRPCStream says how a gRPC run's method streams (Config.GRPCStream);
// the zero value is a unary call.
type GRPCStream struct {
	// Client: the method streams requests (client streaming, or
	// bidirectional with Server). Each call sends Send messages, each
	// Config.Body (one length-prefixed message), on one stream.
	Client bool
	// Server: the method streams responses; its messages are timed.
	Server bool
	// Send is how many messages each call sends with Client; 0 means 1.
	Send int
	// Interval is the pause between one message of a call and the next;
	// 0 sends each as soon as the stream's window has taken the one
	// before it.
	Interval time.Duration
}

// MaxGRPCStreamSend bounds GRPCStream.Send.
const MaxGRPCStreamSend = 1 << 24

// grpcRing is the most request messages a bidirectional call keeps
// unanswered: a message sent after them waits for an answer, so that a
// call's send times fit in a ring of this many.
const grpcRing = 256

// check reports a GRPCStream that does not fit the run: grpc says the
// run makes gRPC calls.
func (g GRPCStream) check(grpc bool) error {
	switch {
	case g == GRPCStream{}:
		return nil
	case !grpc:
		return errors.New("GRPCStream needs GRPC")
	case g.Send < 0 || g.Send > MaxGRPCStreamSend:
		return fmt.Errorf("gRPC messages per call must be between 1 and %d, got %d", MaxGRPCStreamSend, g.Send)
	case g.Interval < 0:
		return fmt.Errorf("the interval between gRPC messages must not be negative, got %s", g.Interval)
	case !g.Client && (g.Send > 1 || g.Interval > 0):
		return errors.New("messages per call and their interval need a client-streaming or bidirectional method")
	}
	return nil
}

// header returns the run's header fields for a call of one message of
// size bytes: a client stream's has the Content-Length of all its
// messages, as the request body is all of them (servers that check it
// reset a stream whose DATA runs past it), unless the fields give one.
func (g GRPCStream) header(fields [][2]string, size int) [][2]string {
	if !g.Client || g.Send <= 1 {
		return fields
	}
	for _, f := range fields {
		if strings.EqualFold(f[0], "content-length") {
			return fields
		}
	}
	return append(fields[:len(fields):len(fields)], [2]string{"content-length", strconv.Itoa(g.Send * size)})
}

// grpcStreams is an HTTP/2 session's state for a streaming method.
type grpcStreams struct {
	GRPCStream
	send     int32 // messages per call
	interval int64 // ns
	// l and c are the session's loop and connection, bound at its first
	// delivery (the server's SETTINGS come before any stream opens), and
	// clock its loop's clock (the engine's; a test's own).
	l     *loop
	c     *conn
	clock func() int64
	// gen counts the session's sockets: a timer armed on an earlier one
	// is stale. armed is the time of the session's timer (0: none).
	gen   uint32
	armed int64
	// times[tag] holds a bidirectional call's send times by message
	// number modulo grpcRing.
	times [][]int64
}

// newGRPCStreams returns the state for g's calls; nil for a unary method.
func newGRPCStreams(g GRPCStream) *grpcStreams {
	if !g.Client && !g.Server {
		return nil
	}
	return &grpcStreams{GRPCStream: g, send: int32(max(g.Send, 1)), interval: int64(g.Interval)}
}

func (g *grpcStreams) bidi() bool { return g.Client && g.Server }

// tunnel reports whether a call's stream stays open after its first
// message.
func (g *grpcStreams) tunnel() bool { return g.Client && g.send > 1 }

// reset forgets the socket: timers armed for it are stale.
func (g *grpcStreams) reset() { g.gen, g.armed = g.gen+1, 0 }

// now is the loop's clock; 0 before the session is bound.
func (g *grpcStreams) now() int64 {
	if g.clock == nil {
		return 0
	}
	return g.clock()
}

// arm brings the session back at time at, unless it comes back sooner.
func (g *grpcStreams) arm(at int64) {
	if g.l == nil || g.armed != 0 && g.armed <= at {
		return
	}
	g.armed = at
	g.l.gtimers.push(grpcTimer{at: at, c: g.c, gen: g.gen})
}

// sentAt counts message i of the call in slot t sent now, and on a
// bidirectional call records when.
func (g *grpcStreams) sentAt(t int32, i int32, now int64) {
	if g.l != nil && g.l.recording {
		g.l.grpc().sent++
	}
	if !g.bidi() {
		return
	}
	for len(g.times) <= int(t) {
		g.times = append(g.times, nil)
	}
	if g.times[t] == nil {
		g.times[t] = make([]int64, min(int(g.send), grpcRing)) // once per slot
	}
	r := g.times[t]
	r[int(i)%len(r)] = now
}

// grpcBind binds the session's streams to the loop that delivers to it.
func (s *h2session) grpcBind(k sink) {
	if s.gs == nil || s.gs.l != nil {
		return
	}
	if d, ok := k.(*delivery); ok {
		s.gs.l, s.gs.c, s.gs.clock = d.l, d.c, d.l.e.now
	}
}

// grpcOpened follows Open of the call in slot t, whose first message
// (body) went with its HEADERS: the rest go as they may.
func (s *h2session) grpcOpened(out []byte, t int32, body []byte) []byte {
	g, c := s.gs, &s.xs[t].call
	if !g.Client {
		return out
	}
	now := g.now()
	c.msg = body
	c.sent, c.next = 1, now+g.interval
	g.sentAt(t, 0, now)
	return s.grpcPump(out, t, now)
}

// grpcPump hands the call in slot t its next messages while they are
// due: the one before has left the queue, the interval has passed, and a
// bidirectional call has room in its ring. The last ends the stream.
func (s *h2session) grpcPump(out []byte, t int32, now int64) []byte {
	g, sl := s.gs, &s.xs[t]
	c := &sl.call
	for sl.use && c.sent < g.send {
		switch {
		case now < c.next:
			g.arm(c.next)
			return out
		case s.cc.Pending(sl.id) > 0: // a window update brings it back
			return out
		case g.bidi() && int64(c.sent)-c.frames.msgs >= grpcRing: // an answer does
			return out
		}
		var err error
		out, err = s.cc.WriteData(out, sl.id, c.msg, c.sent+1 == g.send)
		if err != nil {
			c.sent = g.send // the stream ended (the server answered): nothing more goes
			return out
		}
		g.sentAt(t, c.sent, now)
		c.sent++
		c.next = now + g.interval
	}
	return out
}

// grpcPumpAll hands every call its messages now due, in s.out.
func (s *h2session) grpcPumpAll(now int64) []byte {
	out := s.out[:0]
	if s.gs.Client && s.cc != nil {
		for _, t := range s.live {
			out = s.grpcPump(out, t, now)
		}
	}
	s.out = out
	return out
}

// grpcFed goes on after a read: windows opened and answers arrived may
// let messages go.
func (s *h2session) grpcFed(k sink) {
	if d, ok := k.(*delivery); ok && s.gs.Client {
		if out := s.grpcPumpAll(d.now); len(out) > 0 {
			k.reply(out)
		}
	}
}

// grpcArrived times n response messages of the call of tag, just
// completed.
func (s *h2session) grpcArrived(k sink, tag uint64, n int) {
	d, ok := k.(*delivery)
	if !ok {
		return
	}
	g, sl, now := s.gs, &s.xs[tag], d.now
	c := &sl.call
	last := c.last
	c.last = now
	if !d.l.recording || !g.Server {
		return
	}
	st := d.l.grpc()
	if last == 0 {
		st.firstMessage.RecordValue(usec(now - sl.x.sent))
	} else {
		st.gap.RecordValue(usec(now - last))
	}
	if n > 1 {
		st.gap.RecordValues(result.HistMin, int64(n-1)) // arrived in the same read
	}
	if !g.bidi() || int(tag) >= len(g.times) || g.times[tag] == nil {
		return
	}
	r := g.times[tag]
	for j := c.frames.msgs - int64(n); j < c.frames.msgs && j < int64(c.sent); j++ {
		st.message.RecordValue(usec(now - r[j%int64(len(r))]))
	}
}
