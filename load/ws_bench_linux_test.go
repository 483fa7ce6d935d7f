//go:build linux

package load

import (
	"testing"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
	"github.com/gust-http/gust/result"
)

// wsFeedLoop is feedLoop for WebSocket: a loop and one upgraded
// connection without a socket, the 101 fed from memory, so that a test
// drives the message path (send, feed, complete) alone. With deflate the
// 101 agrees to permessage-deflate without context takeover.
func wsFeedLoop(tb testing.TB, deflate bool) (*loop, *conn, *wsSession) {
	e, err := newEngine(Config{URL: "ws://127.0.0.1:8080/ws", Requests: 1, WebSocket: WebSocketConfig{Deflate: deflate, Inflight: 16}})
	if err != nil {
		tb.Fatal(err)
	}
	e.collector = newCollector(1, nil, false)
	l := &loop{e: e, stats: newStats(), secHist: result.NewHistogram(), recording: true}
	l.stats.ws.upgrade = result.NewHistogram()
	c := newConn(e.newSession())
	ws := c.ses.(*wsSession)
	ws.st = &l.stats.ws
	c.state = stActive
	ws.start(nil)
	answer := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		string(websocket.AcceptKey(nil, ws.key[:]))
	if deflate {
		answer += "\r\nSec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover"
	}
	if !l.feed(c, []byte(answer+"\r\n\r\n"), 1) || !ws.open() {
		tb.Fatalf("the 101 did not upgrade: %+v", l.stats.ws)
	}
	return l, c, ws
}

// TestWebSocketMessagePathDoesNotAllocate holds a 64-byte message and its
// echo to zero allocations, plain and with permessage-deflate, one at a
// time and 16 in flight answered in one read.
func TestWebSocketMessagePathDoesNotAllocate(t *testing.T) {
	for _, deflate := range []bool{false, true} {
		if deflate && raceEnabled {
			continue // inflating takes pooled buffers, which the race detector drops at random
		}
		l, c, ws := wsFeedLoop(t, deflate)
		var one []byte
		if deflate {
			one = websocket.AppendCompressedFrame(nil, websocket.OpBinary, ws.run.payload)
		} else {
			one = websocket.AppendFrame(nil, websocket.OpBinary, true, false, ws.run.payload, nil)
		}
		var batch []byte
		for range 16 {
			batch = append(batch, one...)
		}
		split := len(one) / 2
		in := make([]byte, len(batch))
		allocs := testing.AllocsPerRun(1000, func() {
			c.wbuf = c.wbuf[:0]
			l.send(c, &noRequest, 1, 0, 1)
			l.feed(c, one[:split], 2)
			l.feed(c, one[split:], 3)
			for range 16 {
				l.send(c, &noRequest, 4, 0, 4)
			}
			copy(in, batch)
			l.feed(c, in, 5)
		})
		if allocs != 0 {
			t.Errorf("deflate %v: the message path allocates %.1f times per run, want 0", deflate, allocs)
		}
		if l.stats.requests == 0 || c.inflight() != 0 || l.stats.ws.msgsIn != l.stats.requests {
			t.Fatalf("deflate %v: requests %d inflight %d messages in %d: the echoes were not matched",
				deflate, l.stats.requests, c.inflight(), l.stats.ws.msgsIn)
		}
	}
}

// BenchmarkWebSocketEcho64 runs b.N 64-byte messages end to end over
// loopback against gust/server's echo in this process (50 connections,
// one message in flight each), so allocs/op counts both sides'
// allocations per message; upgrades are a fixed cost spread over b.N.
func BenchmarkWebSocketEcho64(b *testing.B) {
	addr := wsServer(b, echo(false, nil), nil)
	benchRun(b, Config{URL: "ws://" + addr + "/ws", Connections: 50, Requests: int64(b.N)})
}

// TestTimeoutScanVisitsOnlyConnectionsWithSomethingPending: a connection
// joins the scan's list when it sends, stays while its message is in
// flight, and leaves at the first scan after the echo; a held connection
// with nothing in flight costs the scan nothing.
func TestTimeoutScanVisitsOnlyConnectionsWithSomethingPending(t *testing.T) {
	l, c, ws := wsFeedLoop(t, false)
	echo := websocket.AppendFrame(nil, websocket.OpBinary, true, false, ws.run.payload, nil)
	for round := range 2 {
		c.wbuf = c.wbuf[:0]
		l.send(c, &noRequest, 10, 0, 10)
		if !c.watched || len(l.watch) != 1 {
			t.Fatalf("round %d: after a send, watched %v and %d on the list, want true and 1", round, c.watched, len(l.watch))
		}
		l.scanTimeouts(11) // well within the timeout: nothing fails
		if !c.watched || len(l.watch) != 1 || c.inflight() != 1 {
			t.Fatalf("round %d: a message in flight left the list (watched %v, %d listed, %d in flight)", round, c.watched, len(l.watch), c.inflight())
		}
		l.feed(c, append([]byte(nil), echo...), 12)
		l.scanTimeouts(13)
		if c.watched || len(l.watch) != 0 {
			t.Fatalf("round %d: after the echo, watched %v and %d on the list, want false and 0", round, c.watched, len(l.watch))
		}
	}
}

// TestNeedsWatch: which connections the timeout scan keeps visiting. An
// idle HTTP/2 connection stays: its server can take its room away with a
// SETTINGS frame while nothing is sent.
func TestNeedsWatch(t *testing.T) {
	newSes := func(cfg Config) session {
		e, err := newEngine(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e.newSession()
	}
	_, _, openWS := wsFeedLoop(t, false)
	// An HTTP/2 session that has the server's SETTINGS: ready, idle.
	e, err := newEngine(Config{URL: "http://127.0.0.1:8080/", Requests: 1, HTTP2: true})
	if err != nil {
		t.Fatal(err)
	}
	e.collector = newCollector(1, nil, false)
	l := &loop{e: e, stats: newStats(), secHist: result.NewHistogram(), recording: true}
	h2 := newConn(e.newSession())
	h2.state = stActive
	h2.ses.start(nil)
	if !l.feed(h2, http2.AppendSettings(nil), 1) || h2.ses.room() == 0 {
		t.Fatalf("the HTTP/2 session is not ready after SETTINGS (room %d)", h2.ses.room())
	}
	for _, tc := range []struct {
		name  string
		state connState
		ses   session
		want  bool
	}{
		{"connecting", stConnecting, newSes(Config{URL: "http://127.0.0.1:8080/", Requests: 1}), true},
		{"HTTP/1.1, idle and ready", stActive, newSes(Config{URL: "http://127.0.0.1:8080/", Requests: 1}), false},
		{"HTTP/2, not ready", stActive, newSes(Config{URL: "http://127.0.0.1:8080/", Requests: 1, HTTP2: true}), true},
		{"HTTP/2, ready and idle", stActive, h2.ses, true},
		{"WebSocket, upgrade not answered", stActive, newSes(Config{URL: "ws://127.0.0.1:8080/ws", Requests: 1}), true},
		{"WebSocket, open and idle", stActive, openWS, false},
	} {
		c := newConn(tc.ses)
		c.state = tc.state
		if got := needsWatch(c); got != tc.want {
			t.Errorf("%s: needsWatch %v, want %v", tc.name, got, tc.want)
		}
	}
}
