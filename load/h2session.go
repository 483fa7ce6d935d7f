package load

import (
	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/result"
)

// h2session is HTTP/2's session on internal/http2's sans-I/O ClientConn:
// start writes the preface, room follows the streams the engine may open
// (Streams, bounded by the server's SETTINGS_MAX_CONCURRENT_STREAMS), send
// opens a stream per request, and feed turns the engine's events into
// completions, resets, retries and GOAWAYs. Exchanges are kept by the Tag
// the engine hands back in every event: the index of a slot in xs.
type h2session struct {
	cfg    http2.ClientConfig
	scheme string
	cc     *http2.ClientConn // nil until start: a new engine per socket

	xs   []h2slot // by tag; grown up to the streams allowed, then reused
	free []int32  // tags not in use
	live []int32  // tags in flight, in no particular order

	// bodies[tag] holds a copy of the body of a request that does not
	// outlive send (a Source's): the engine sends it as windows open.
	bodies  [][]byte
	h2req   http2.Request // the request being opened
	pending []byte        // a partial frame carried to the next read
	out     []byte        // what the engine writes back, handed to sink.reply
	goAway  bool          // the server sent GOAWAY on this socket

	// sseAll, streamAll: every response is read as a stream (Config.SSE,
	// Config.Stream; stream.go), its DATA delivered by the engine.
	sseAll, streamAll bool
	// grpc: every response is a gRPC call's (Config.GRPC; grpc.go): its
	// DATA read for messages, its grpc-status taken by cfg.HeaderFunc.
	grpc bool
	// gs: a streaming method's calls (grpcstream.go); nil otherwise.
	gs *grpcStreams
}

// h2slot is one exchange in flight on a stream.
type h2slot struct {
	x      exchange
	id     uint32 // its stream
	pos    int32  // its index in live
	use    bool   // in flight
	stream streamReader
	call   grpcCall // with grpc
}

// newH2Session returns an HTTP/2 session keeping up to streams requests in
// flight; scheme is the :scheme of its requests ("http" for h2c).
func newH2Session(streams int, scheme string) *h2session {
	return &h2session{
		cfg:    http2.ClientConfig{MaxStreams: streams},
		scheme: scheme,
		xs:     make([]h2slot, 0, streams),
		free:   make([]int32, 0, streams),
		live:   make([]int32, 0, streams),
	}
}

// newH2SessionFor is newH2Session as cfg asks, streams read as streams
// included.
func newH2SessionFor(cfg *Config, streams int, scheme string) *h2session {
	s := newH2Session(streams, scheme)
	s.sseAll, s.streamAll = cfg.SSE, cfg.Stream
	if cfg.GRPC {
		s.grpc = true
		s.cfg.HeaderFunc = s.grpcHeader // made once per session, not per call
		s.gs = newGRPCStreams(cfg.GRPCStream)
	}
	return s
}

func (s *h2session) start(out []byte) []byte {
	s.cc = http2.NewClientConn(s.cfg)
	return s.cc.Start(out)
}

// room is what the engine may open now: nothing before the server's
// SETTINGS, after its GOAWAY or a connection error.
func (s *h2session) room() int {
	if s.cc == nil {
		return 0
	}
	return s.cc.CanOpen()
}

func (s *h2session) inflight() int     { return len(s.live) }
func (s *h2session) multiplexed() bool { return true }
func (s *h2session) at(i int) exchange { return s.xs[s.live[i]].x }

// closing: after GOAWAY no stream may be opened, so the connection is
// replaced once its last streams are answered.
func (s *h2session) closing() bool { return s.goAway || s.cc != nil && s.cc.Err() != nil }

// stalled reports whether a request body waits for the server to open a
// flow-control window.
func (s *h2session) stalled() bool { return s.cc != nil && s.cc.FlowBlocked() }

func (s *h2session) reset() {
	s.cc = nil
	for _, t := range s.live {
		s.xs[t] = h2slot{}
		s.free = append(s.free, t)
	}
	s.live = s.live[:0]
	s.pending = s.pending[:0]
	s.goAway = false
	if s.gs != nil {
		s.gs.reset()
	}
}

// send opens a stream for req, HPACK-encoding its head (internal/http2
// caches the blocks of requests that repeat), and records x under the
// stream's tag. A body that does not outlive the call is copied into the
// tag's own buffer, reused from one stream to the next.
func (s *h2session) send(out []byte, req *request, x exchange) []byte {
	tag := s.add(x)
	body := req.body
	if !req.kept && len(body) > 0 {
		for len(s.bodies) <= int(tag) {
			s.bodies = append(s.bodies, nil)
		}
		s.bodies[tag] = append(s.bodies[tag][:0], body...)
		body = s.bodies[tag]
	}
	s.h2req = http2.Request{Head: &req.head, Scheme: s.scheme, Body: body, Tag: uint64(tag), WantData: s.sseAll || s.streamAll || s.grpc}
	s.h2req.Tunnel = s.gs != nil && s.gs.tunnel() // a client stream's next messages follow
	out, id, err := s.cc.Open(out, &s.h2req)
	s.h2req = http2.Request{} // keep no views of req
	if err != nil {
		// room said a stream could be opened, so this does not happen; if
		// it did, the exchange waits for Timeout and is counted then.
		return out
	}
	s.xs[tag].id = id
	if s.gs != nil {
		out = s.grpcOpened(out, tag, body)
	}
	return out
}

// add records x in a free slot and returns its tag.
func (s *h2session) add(x exchange) int32 {
	var t int32
	if n := len(s.free); n > 0 {
		t = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		t = int32(len(s.xs))
		s.xs = append(s.xs, h2slot{})
	}
	s.xs[t] = h2slot{x: x, pos: int32(len(s.live)), use: true}
	s.live = append(s.live, t)
	return t
}

// slot returns the exchange of tag in flight, or nil.
func (s *h2session) slot(tag uint64) *h2slot {
	if tag >= uint64(len(s.xs)) || !s.xs[tag].use {
		return nil
	}
	return &s.xs[tag]
}

// take removes the exchange of tag and returns it; ok is false for a tag
// not in flight.
func (s *h2session) take(tag uint64) (exchange, bool) {
	if tag >= uint64(len(s.xs)) || !s.xs[tag].use {
		return exchange{}, false
	}
	sl := &s.xs[tag]
	x, pos := sl.x, sl.pos
	last := s.live[len(s.live)-1]
	s.live[pos] = last
	s.xs[last].pos = pos
	s.live = s.live[:len(s.live)-1]
	*sl = h2slot{}
	s.free = append(s.free, int32(tag))
	return x, true
}

// feed hands the bytes read to the engine, writes back what it answers,
// and delivers its events. A partial frame is kept for the next read, as
// HTTP/1.1 keeps a partial head.
func (s *h2session) feed(data []byte, k sink) (result.ErrorKind, bool) {
	in := data
	if len(s.pending) > 0 {
		s.pending = append(s.pending, data...)
		in = s.pending
	}
	s.grpcBind(k)
	out, n, err := s.cc.Feed(s.out[:0], in)
	s.out = out
	s.deliver(k, err != nil)
	if len(out) > 0 {
		k.reply(out)
	}
	if s.gs != nil && err == nil {
		s.grpcFed(k)
	}
	if err != nil {
		return connErrorKind(err), false
	}
	rest := in[n:]
	if len(s.pending) > 0 {
		s.pending = s.pending[:copy(s.pending, rest)]
	} else {
		s.pending = append(s.pending, rest...)
	}
	return 0, true
}

// deliver turns the engine's events into the sink's calls. After a
// connection error (connFailed) the streams it failed stay in flight, so
// that the loop counts them all under the connection error's kind.
func (s *h2session) deliver(k sink, connFailed bool) {
	for i := range s.cc.Events() {
		ev := &s.cc.Events()[i]
		switch ev.Kind {
		case http2.EventHeaders:
			if sl := s.slot(ev.Tag); sl != nil && (s.sseAll || s.streamAll) {
				sl.stream.begin(k, sl.x, false, s.sseAll, s.streamAll)
			}
		case http2.EventData:
			if sl := s.slot(ev.Tag); sl != nil {
				sl.stream.body(k, sl.x, ev.Data)
				if s.grpc {
					if n := sl.call.frames.feed(ev.Data, maxGRPCMessage); n > 0 && s.gs != nil {
						s.grpcArrived(k, ev.Tag, n)
					}
				}
			}
		case http2.EventEnd:
			if sl := s.slot(ev.Tag); sl != nil {
				sl.stream.end(k, sl.x)
				if s.grpc {
					k.grpcEnd(sl.x, sl.call.code(ev.Status), sl.call.frames.msgs)
				}
			}
			if x, ok := s.take(ev.Tag); ok {
				k.complete(x, ev.Status)
			}
		case http2.EventReset:
			if x, ok := s.take(ev.Tag); ok {
				k.reset(x, uint32(ev.Code))
			}
		case http2.EventRefused:
			if x, ok := s.take(ev.Tag); ok {
				k.retry(x)
			}
		case http2.EventFailed:
			if connFailed {
				continue
			}
			if x, ok := s.take(ev.Tag); ok {
				k.abandon(x, streamErrorKind(ev.Code))
			}
		case http2.EventGoAway:
			s.goAway = true
			k.goAway(uint32(ev.Code))
		}
	}
}

// expire gives up on the streams sent (or meant to be) before cutoff: each
// is reset with CANCEL and counted as a read timeout, or as a flow stall
// while request bodies wait for a window. The others go on: one stream
// the server forgets does not hold up a connection that answers the rest.
func (s *h2session) expire(cutoff int64, k sink) {
	if s.cc == nil {
		return
	}
	kind := result.ErrReadTimeout
	if s.cc.FlowBlocked() {
		kind = result.ErrFlowStall
	}
	out := s.out[:0]
	for i := 0; i < len(s.live); {
		sl := &s.xs[s.live[i]]
		if sl.x.sent >= cutoff {
			i++
			continue
		}
		out = s.cc.Cancel(out, sl.id)
		x, _ := s.take(uint64(s.live[i])) // moves the last one into i
		k.abandon(x, kind)
	}
	s.out = out
	if len(out) > 0 {
		k.reply(out)
	}
}

// eof: the server closed the connection. After its GOAWAY, the streams
// it left unanswered are GOAWAY's; otherwise the loop counts them closed.
func (s *h2session) eof(k sink) {
	if !s.goAway {
		return
	}
	for len(s.live) > 0 {
		x, _ := s.take(uint64(s.live[len(s.live)-1]))
		k.abandon(x, result.ErrGoAway)
	}
}

// grpcHeader hands a response header or trailer field to its call: the
// engine calls it during Feed, before the events it delivers.
func (s *h2session) grpcHeader(tag uint64, name, value string) {
	if sl := s.slot(tag); sl != nil {
		sl.call.header(name, value)
	}
}

// streamErrorKind classifies a stream this side failed by the code it
// reset it with.
func streamErrorKind(code http2.ErrCode) result.ErrorKind {
	if code == http2.ErrCodeCompression {
		return result.ErrCompression
	}
	return result.ErrProtocol
}

// connErrorKind classifies a connection error found in the server's bytes.
func connErrorKind(err error) result.ErrorKind {
	return streamErrorKind(http2.CodeOf(err))
}
