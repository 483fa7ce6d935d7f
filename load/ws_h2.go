package load

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
	"github.com/gust-http/gust/result"
)

// WebSocket over HTTP/2 (gust load --http2 ws:// and wss://, RFC 8441): a
// wsSession whose socket speaks HTTP/2 (internal/http2's client engine)
// and whose WebSocket is one extended CONNECT stream (:protocol
// websocket), opened once the server's SETTINGS allow it
// (SETTINGS_ENABLE_CONNECT_PROTOCOL; the run's probe fails at once with
// one line if they do not). One WebSocket per connection: the stream's
// 200 is the upgrade (timed from the preface), its DATA carries the
// frames both ways under the windows, and a stream reset ends the
// connection as a closed socket would. Messages, pings and counts are the
// wsSession's own, as over HTTP/1.1.

// wsH2 is a wsSession's HTTP/2 side. Its buffers are reused from socket to
// socket: nothing is allocated per message.
type wsH2 struct {
	cc     *http2.ClientConn // a new engine per socket
	id     uint32            // the WebSocket's stream; 0 until opened
	ext    string            // the 200's sec-websocket-extensions
	queued []byte            // frames waiting for the stream (messages, pings, pongs, the close reply)
	given  []byte            // frames the engine holds until Pending is 0
	wsIn   []byte            // the stream's DATA not yet read as whole frames
	wsOut  []byte            // the WebSocket engine's answers of one feed
	out    []byte            // the HTTP/2 engine's output of one feed
	carry  []byte            // a partial HTTP/2 frame carried to the next read
}

// wsH2Request is the extended CONNECT of a run (newWSRun).
func wsH2Request(r *wsRun, scheme string, headers [][2]string) http2.Request {
	fields := []http2.Field{{Name: "sec-websocket-version", Value: "13"}}
	if r.offer != nil {
		fields = append(fields, http2.Field{Name: "sec-websocket-extensions", Value: string(r.offer)})
	}
	for _, h := range headers {
		fields = append(fields, http2.Field{Name: ascii.ToLower(h[0]), Value: h[1]})
	}
	return http2.Request{Method: "CONNECT", Protocol: "websocket", Scheme: scheme, Authority: r.host, Path: r.path,
		Header: fields, Tunnel: true, WantData: true, Tag: 1}
}

// startH2 writes the preface; the stream opens once the server's SETTINGS
// are in (feedH2).
func (s *wsSession) startH2(out []byte) []byte {
	h := s.h2
	h.cc = http2.NewClientConn(http2.ClientConfig{MaxStreams: 1, HeaderFunc: func(_ uint64, name, value string) {
		if name == "sec-websocket-extensions" {
			h.ext = value
		}
	}})
	h.id, h.ext = 0, ""
	return h.cc.Start(out)
}

// resetH2 forgets the socket's HTTP/2 state.
func (s *wsSession) resetH2() {
	h := s.h2
	h.cc, h.id = nil, 0
	h.queued, h.given, h.wsIn, h.carry = h.queued[:0], h.given[:0], h.wsIn[:0], h.carry[:0]
}

// flushH2 gives the engine the queued frames once it holds none (their
// DATA frames appended to out as the windows admit them; the rest from
// later feeds).
func (s *wsSession) flushH2(out []byte) []byte {
	h := s.h2
	if h.id == 0 || len(h.queued) == 0 || h.cc.Pending(h.id) > 0 {
		return out
	}
	h.given, h.queued = h.queued, h.given[:0] // the engine keeps given until Pending is 0
	out, _ = h.cc.WriteData(out, h.id, h.given, false)
	return out
}

// sendMessageH2 is send's framing on HTTP/2: into the stream's queue.
func (s *wsSession) sendMessageH2(out []byte) []byte {
	h := s.h2
	if s.deflated {
		var key [4]byte
		binary.LittleEndian.PutUint32(key[:], rand.Uint32())
		h.queued = websocket.AppendFrame(h.queued, s.run.op, true, true, s.run.deflated, &key)
	} else {
		h.queued, _ = s.eng.AppendMessage(h.queued, s.run.op, s.run.payload)
	}
	return s.flushH2(out)
}

// feedH2 reads the server's frames: the SETTINGS that let the stream
// open, the 200 that upgrades it, DATA for the WebSocket engine, and a
// reset or END_STREAM that ends it.
func (s *wsSession) feedH2(data []byte, k sink) (result.ErrorKind, bool) {
	h := s.h2
	in := data
	if len(h.carry) > 0 {
		h.carry = append(h.carry, data...)
		in = h.carry
	}
	out, n, err := h.cc.Feed(h.out[:0], in)
	h.out = out
	kind, ok := s.streamEvents(k)
	if err != nil && ok {
		kind, ok = connErrorKind(err), false
	}
	if ok && h.id == 0 && h.cc.CanOpen() > 0 {
		if !h.cc.PeerSettings().EnableConnectProtocol {
			s.st.refused(0) // the probe saw the setting; this socket's server did not send it
			kind, ok = result.ErrUpgrade, false
		} else {
			out, h.id, _ = h.cc.Open(out, &s.run.h2req)
		}
	}
	if ok && s.phase != wsUpgrading && len(h.wsIn) > 0 {
		s.eng.Lend(&s.st.events)
		wsOut, used, werr := s.eng.Feed(h.wsOut[:0], h.wsIn)
		h.wsOut = wsOut
		s.deliver(k)
		h.queued = append(h.queued, wsOut...)
		h.wsIn = h.wsIn[:copy(h.wsIn, h.wsIn[used:])]
		if werr != nil {
			kind, ok = result.ErrProtocol, false // our close with its code goes out first
		}
	}
	out = s.flushH2(out)
	h.out = out
	if len(out) > 0 {
		k.reply(out)
	}
	if !ok {
		return kind, false
	}
	rest := in[n:]
	if len(h.carry) > 0 {
		h.carry = h.carry[:copy(h.carry, rest)]
	} else {
		h.carry = append(h.carry, rest...)
	}
	return 0, true
}

// streamEvents acts on the HTTP/2 engine's events for the WebSocket's
// stream; false with a kind when the connection must end.
func (s *wsSession) streamEvents(k sink) (result.ErrorKind, bool) {
	h := s.h2
	for i := range h.cc.Events() {
		ev := &h.cc.Events()[i]
		if ev.StreamID != h.id && ev.Kind != http2.EventGoAway {
			continue
		}
		switch ev.Kind {
		case http2.EventHeaders:
			if ev.Status != 200 {
				s.st.refused(ev.Status)
				return result.ErrUpgrade, false
			}
			if !s.upgradedH2() {
				return result.ErrUpgrade, false
			}
		case http2.EventData:
			h.wsIn = append(h.wsIn, ev.Data...)
		case http2.EventEnd, http2.EventReset, http2.EventFailed:
			if s.phase == wsUpgrading {
				s.st.refused(0)
				return result.ErrUpgrade, false
			}
			if s.phase == wsOpen && len(h.wsIn) == 0 {
				return result.ErrReset, false // the stream ended without a close frame
			}
		case http2.EventGoAway:
			if s.phase == wsUpgrading && h.id == 0 {
				s.st.refused(0)
				return result.ErrUpgrade, false
			}
		}
	}
	return 0, true
}

// upgradedH2 takes the 200: the extension answer checked against the
// offer, the WebSocket engine set up, the upgrade counted.
func (s *wsSession) upgradedH2() bool {
	var params *websocket.DeflateParams
	if ext := s.h2.ext; ext != "" {
		p, err := websocket.ParseDeflateResponse([]byte(ext))
		if s.run.offer == nil || err != nil || !wsOffer.Accepts(p) {
			s.st.refused(200)
			return false
		}
		p.ClientNoContextTakeover = true
		params = &p
		s.deflated = p.ClientMaxWindowBits == 0 || p.ClientMaxWindowBits == 15
	}
	s.eng.Init(websocket.Config{Client: true, Deflate: params})
	s.phase = wsOpen
	s.st.upgraded(usec(s.run.clock()-s.started), params != nil)
	return true
}

// errNoExtendedConnect is the probe's answer from a server that does not
// allow WebSocket over HTTP/2.
var errNoExtendedConnect = errors.New("the server does not allow WebSocket over HTTP/2 (no SETTINGS_ENABLE_CONNECT_PROTOCOL, RFC 8441): drop --http2")

// probeExtendedConnect speaks HTTP/2 on conn until the server's SETTINGS
// arrive, and fails unless they allow extended CONNECT.
func probeExtendedConnect(conn net.Conn, timeout time.Duration, addr string) error {
	cc := http2.NewClientConn(http2.ClientConfig{})
	if _, err := conn.Write(cc.Start(nil)); err != nil {
		return fmt.Errorf("HTTP/2 to %s: %w", addr, err)
	}
	conn.SetDeadline(time.Now().Add(timeout))
	var in []byte
	buf := make([]byte, 16<<10)
	for cc.CanOpen() == 0 {
		n, err := conn.Read(buf)
		if n == 0 && err != nil {
			return fmt.Errorf("%s sent no HTTP/2 SETTINGS (%v): does it speak HTTP/2? drop --http2", addr, unwrapOpError(err))
		}
		in = append(in, buf[:n]...)
		_, used, ferr := cc.Feed(nil, in)
		if ferr != nil {
			return fmt.Errorf("%s does not speak HTTP/2 (%v): drop --http2", addr, ferr)
		}
		in = in[used:]
	}
	if !cc.PeerSettings().EnableConnectProtocol {
		return fmt.Errorf("%s: %w", addr, errNoExtendedConnect)
	}
	return nil
}
