package load

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/websocket"
	"github.com/gust-http/gust/result"
)

// wsSession is a WebSocket connection's session (gust load ws:// and
// wss://) on internal/websocket's sans-I/O engine, speaking as a client:
// start writes the opening handshake (a new key per socket); feed first
// reads the server's answer (ws_upgrade.go), a refusal failing the
// connection as an upgrade error, then frames through the engine, which
// unmasks nothing (a server's frames are bare) and answers pings and the
// server's close on its own (sink.reply). room is 0 until the 101, then
// Inflight minus the messages in flight; send appends the run's one
// message, masked afresh (and, with permessage-deflate, compressed once
// per run: without context takeover every message compresses alike); each
// message that comes back completes the oldest in flight, as an echo
// answers in order. A held connection (WebSocketConfig.Hold) sends only
// pings, when holdSchedule says (schedule_hold.go).
//
// The session counts into its loop's wsStats (st) as it goes: nothing is
// allocated per message, and the sink sees only completions and failures.
type wsSession struct {
	run *wsRun
	st  *wsStats // the loop's; set by newLoops
	eng websocket.Conn

	phase    wsPhase
	started  int64    // when the handshake went out, on the loops' clock
	key      [24]byte // this socket's Sec-WebSocket-Key
	deflated bool     // this socket sends run.deflated (permessage-deflate agreed)

	sent ring[exchange] // the messages in flight, oldest first

	head     http1.ResponseHead
	pending  []byte // a partial head or frame carried to the next read
	out      []byte // what the engine writes back (pongs, the close reply)
	nextPing int64  // a held connection's next ping; 0 until upgraded

	h2 *wsH2 // over HTTP/2 (ws_h2.go); nil over HTTP/1.1
}

// wsPhase is where a WebSocket connection is.
type wsPhase uint8

const (
	wsUpgrading wsPhase = iota // the handshake is out, its answer awaited
	wsOpen                     // upgraded: messages flow
	wsClosed                   // the server's close arrived: the socket ends
)

// newWSSession returns a session of run, keeping up to run.inflight
// messages in flight.
func newWSSession(run *wsRun) *wsSession {
	s := &wsSession{run: run, sent: newRing[exchange](run.inflight)}
	if run.h2 {
		s.h2 = &wsH2{}
	}
	return s
}

// start writes the opening handshake with a fresh key.
func (s *wsSession) start(out []byte) []byte {
	s.phase = wsUpgrading
	s.started = s.run.clock()
	if s.h2 != nil {
		return s.startH2(out)
	}
	key := websocket.NewKey(s.key[:0])
	out, _ = s.run.appendHandshake(out, key) // checked once by newWSRun
	return out
}

func (s *wsSession) room() int {
	if s.phase != wsOpen {
		return 0
	}
	return s.sent.room()
}

func (s *wsSession) inflight() int      { return s.sent.len() }
func (s *wsSession) at(i int) exchange  { return s.sent.at(i) }
func (s *wsSession) closing() bool      { return s.phase == wsClosed }
func (s *wsSession) multiplexed() bool  { return false }
func (s *wsSession) stalled() bool      { return false }
func (s *wsSession) expire(int64, sink) {}
func (s *wsSession) eof(sink)           {}

func (s *wsSession) reset() {
	s.phase = wsUpgrading
	s.sent.reset()
	s.pending = s.pending[:0]
	s.deflated = false
	s.nextPing = 0
	s.eng.Release()
	if s.h2 != nil {
		s.resetH2()
	}
}

// send appends the run's message, masked with a fresh key, and records x
// in flight. req is the run's HTTP request, which a WebSocket does not
// send.
func (s *wsSession) send(out []byte, _ *request, x exchange) []byte {
	s.sent.push(x)
	s.st.msgsOut++
	s.st.bytesOut += int64(len(s.run.payload))
	if s.h2 != nil {
		return s.sendMessageH2(out)
	}
	if s.deflated {
		var key [4]byte
		binary.LittleEndian.PutUint32(key[:], rand.Uint32())
		return websocket.AppendFrame(out, s.run.op, true, true, s.run.deflated, &key)
	}
	out, _ = s.eng.AppendMessage(out, s.run.op, s.run.payload) // fails only after a close, when room is 0
	return out
}

// ping appends a ping (a held connection's).
func (s *wsSession) ping(out []byte) []byte {
	s.st.pings++
	if s.h2 != nil {
		s.h2.queued = s.eng.AppendPing(s.h2.queued, nil)
		return s.flushH2(out)
	}
	return s.eng.AppendPing(out, nil)
}

// pop removes the oldest message in flight and returns it.
func (s *wsSession) pop() exchange { return s.sent.pop() }

// feed reads the upgrade's answer, then frames. A partial head or frame is
// kept for the next read.
func (s *wsSession) feed(data []byte, k sink) (result.ErrorKind, bool) {
	if s.h2 != nil {
		return s.feedH2(data, k)
	}
	in, carried := data, len(s.pending) > 0
	if carried {
		s.pending = append(s.pending, data...)
		in = s.pending
	}
	if s.phase == wsUpgrading {
		n, ok := s.upgrade(in)
		if !ok {
			return result.ErrUpgrade, false
		}
		if s.phase == wsUpgrading {
			s.keep(in, carried) // the head is not all in yet
			return 0, true
		}
		in = in[n:]
	}
	if s.phase == wsClosed {
		return 0, true // nothing follows a close
	}
	s.eng.Lend(&s.st.events)
	out, n, err := s.eng.Feed(s.out[:0], in)
	s.out = out
	s.deliver(k)
	if len(out) > 0 {
		k.reply(out)
	}
	if err != nil {
		return result.ErrProtocol, false // the engine's close with its code is queued; the socket ends
	}
	s.keep(in[n:], carried)
	return 0, true
}

// keep carries rest, the unconsumed end of this read's bytes, to the next
// read; carried says rest lies in s.pending already.
func (s *wsSession) keep(rest []byte, carried bool) {
	if carried {
		s.pending = s.pending[:copy(s.pending, rest)]
		return
	}
	s.pending = append(s.pending[:0], rest...)
}

// deliver turns the engine's events into completions and counts.
func (s *wsSession) deliver(k sink) {
	evs := s.eng.Events()
	for i := range evs {
		ev := &evs[i]
		switch ev.Kind {
		case websocket.EventMessage:
			s.st.msgsIn++
			s.st.bytesIn += int64(len(ev.Payload))
			if s.sent.len() > 0 {
				k.complete(s.pop(), 0) // a message, not a response: no status
			}
		case websocket.EventPing:
			s.st.pingsIn++ // the engine queued the pong
		case websocket.EventPong:
			s.st.pongs++
		case websocket.EventClose:
			// The engine queued the close reply; the messages in flight
			// will not come back on this socket. A server going away
			// (1001, a graceful shutdown or an upgrade) or restarting
			// (1012) did not fail them: they go out again on the next
			// connection, counted as retried.
			s.st.closed(ev.Code)
			s.phase = wsClosed
			goingAway := ev.Code == websocket.CloseGoingAway || ev.Code == closeServiceRestart
			for s.sent.len() > 0 {
				if goingAway {
					k.retry(s.pop())
				} else {
					k.abandon(s.pop(), result.ErrClosed)
				}
			}
		}
	}
}

// closeServiceRestart is the close code of a server restarting (1012,
// registered with IANA after RFC 6455).
const closeServiceRestart = 1012

// open reports whether the connection is upgraded and not closing.
func (s *wsSession) open() bool { return s.phase == wsOpen }

// wsHeld counts the loop's connections that are upgraded and open.
func (l *loop) wsHeld() int64 {
	var n int64
	for _, c := range l.conns {
		if ws, ok := c.ses.(*wsSession); ok && c.state == stActive && ws.open() {
			n++
		}
	}
	return n
}
