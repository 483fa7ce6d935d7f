//go:build linux

package load

import (
	"context"
	"crypto/tls"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
	"github.com/gust-http/gust/server"
)

// wsH2Server runs gust/server with HTTP/2 (h2c, or h2 by ALPN when tc is
// set) and ws at /ws (every other path answers 404); connect says whether
// it advertises extended CONNECT.
func wsH2Server(t testing.TB, ws *server.WebSocket, tc *tls.Config, connect bool) string {
	t.Helper()
	s := &server.Server{
		Handler: server.HandlerFunc(func(c *server.Ctx) {
			if string(c.Path()) == "/ws" {
				c.UpgradeWebSocket(ws)
				return
			}
			c.SetStatus(404)
			c.WriteString("not here")
		}),
		Config: server.Config{Loops: 1, TLS: tc, H2C: tc == nil,
			HTTP2: server.HTTP2Config{OverTLS: tc != nil, ExtendedConnect: connect}},
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() { s.Close() })
	return s.Addr().String()
}

func TestWebSocketOverHTTP2Echoes(t *testing.T) {
	serverTLS, clientTLS := selfSigned(t)
	const n = 400
	for _, tc := range []struct {
		name    string
		scheme  string
		ws      WebSocketConfig
		deflate bool
	}{
		{name: "binary messages over h2c", scheme: "ws"},
		{name: "text messages, 4 in flight, over h2c", scheme: "ws", ws: WebSocketConfig{Text: true, Inflight: 4}},
		{name: "permessage-deflate over h2c", scheme: "ws", ws: WebSocketConfig{Deflate: true, Size: 3000}, deflate: true},
		{name: "messages of 100 kB over h2c: many DATA frames each", scheme: "ws", ws: WebSocketConfig{Size: 100_000, Inflight: 2}},
		{name: "wss over h2", scheme: "wss", ws: WebSocketConfig{Inflight: 2}},
		{name: "wss over h2 with permessage-deflate", scheme: "wss", ws: WebSocketConfig{Deflate: true}, deflate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stc *tls.Config
			if tc.scheme == "wss" {
				stc = serverTLS.Clone()
			}
			addr := wsH2Server(t, echo(tc.deflate, nil), stc, true)
			res := wsRunOK(t, Config{URL: tc.scheme + "://" + addr + "/ws", HTTP2: true, Connections: 4, Loops: 2, Requests: n,
				WebSocket: tc.ws, TLS: clientTLS})
			w := res.WebSocket
			if res.Requests != n || res.ErrorCount() != 0 {
				t.Fatalf("requests %d errors %v, want %d messages echoed", res.Requests, res.Errors, n)
			}
			if w.Upgrades != 4 || w.UpgradeFailed != 0 || res.Reconnects != 0 {
				t.Errorf("upgrades %d failed %d reconnects %d, want 4 upgrades, one per connection", w.Upgrades, w.UpgradeFailed, res.Reconnects)
			}
			size := int64(max(tc.ws.Size, 64))
			if w.MessagesSent != n || w.MessagesReceived != n || w.BytesSent != n*size || w.BytesReceived != n*size {
				t.Errorf("messages %d/%d bytes %d/%d, want %d each way of %d bytes", w.MessagesSent, w.MessagesReceived, w.BytesSent, w.BytesReceived, n, size)
			}
			if (w.Deflate == 4) != tc.deflate {
				t.Errorf("deflate on %d connections (want it: %v)", w.Deflate, tc.deflate)
			}
			if tc.deflate && size >= 1000 && res.BytesWritten > n*size/2 {
				t.Errorf("wrote %d bytes for %d messages of %d: not compressed", res.BytesWritten, n, size)
			}
			if !w.HTTP2 {
				t.Error("the result does not say HTTP/2")
			}
			if res.TLS == nil != (tc.scheme == "ws") {
				t.Errorf("TLS record %v for %s", res.TLS, tc.scheme)
			}
		})
	}
}

func TestWebSocketOverHTTP2RefusedUpgradeIsAnErrorKindOfItsOwn(t *testing.T) {
	addr := wsH2Server(t, echo(false, nil), nil, true)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/elsewhere", HTTP2: true, Connections: 2, Loops: 1, Requests: 10})
	w := res.WebSocket
	if res.Requests != 0 || res.Errors[result.ErrUpgrade] != 10 || res.ErrorCount() != 10 {
		t.Errorf("requests %d errors %v, want 10 upgrade errors", res.Requests, res.Errors)
	}
	if w.Upgrades != 0 || w.UpgradeFailed < 10 || w.UpgradeStatus[404] != w.UpgradeFailed {
		t.Errorf("upgrades %d failed %d by status %v, want every one a 404", w.Upgrades, w.UpgradeFailed, w.UpgradeStatus)
	}
}

func TestWebSocketOverHTTP2NeedsTheServersSetting(t *testing.T) {
	addr := wsH2Server(t, echo(false, nil), nil, false)
	_, err := Run(context.Background(), Config{URL: "ws://" + addr + "/ws", HTTP2: true, Connections: 1, Requests: 1, Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "SETTINGS_ENABLE_CONNECT_PROTOCOL") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v, want one line naming SETTINGS_ENABLE_CONNECT_PROTOCOL", err)
	}
	if _, err := Run(context.Background(), Config{URL: "ws://" + addr + "/ws", AutoProtocol: true, Connections: 1, Requests: 1}); err == nil {
		t.Error("--proto auto accepted for a WebSocket")
	}
}

func TestWebSocketOverHTTP2ServerCloseAndPings(t *testing.T) {
	var mu sync.Mutex
	seen := map[*server.WSConn]int{}
	ws := &server.WebSocket{OnMessage: func(c *server.WSConn, typ server.WSMessageType, data []byte) {
		mu.Lock()
		seen[c]++
		k := seen[c]
		mu.Unlock()
		if k == 5 {
			c.Close(4001, "enough")
			return
		}
		c.Send(typ, data)
	}}
	addr := wsH2Server(t, ws, nil, true)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", HTTP2: true, Connections: 2, Loops: 1, Requests: 60})
	w := res.WebSocket
	closes := w.Closes[4001]
	if closes < 10 || res.Errors[result.ErrClosed] != closes || res.Requests+closes != 60 {
		t.Errorf("closes %v, requests %d, errors %v: want every fifth message closed by 4001 and counted closed", w.Closes, res.Requests, res.Errors)
	}
	if res.Reconnects < closes || w.Upgrades < closes {
		t.Errorf("reconnects %d, upgrades %d after %d closes: the connections were not reopened", res.Reconnects, w.Upgrades, closes)
	}

	t.Run("held connections ping and stay open", func(t *testing.T) {
		var opened atomic.Int64
		ws := echo(false, nil)
		ws.PingInterval = 150 * time.Millisecond
		ws.OnOpen = func(*server.WSConn) { opened.Add(1) }
		addr := wsH2Server(t, ws, nil, true)
		res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", HTTP2: true, Connections: 3, Loops: 1, Duration: time.Second,
			WebSocket: WebSocketConfig{Hold: true, Ping: 100 * time.Millisecond}})
		w := res.WebSocket
		if w.Held != 3 || res.Reconnects != 0 || opened.Load() != 3 || w.PingsSent < 3*4 || w.PongsReceived < w.PingsSent-3 {
			t.Errorf("held %d reconnects %d opened %d pings %d pongs %d, want 3 held, pinging", w.Held, res.Reconnects, opened.Load(), w.PingsSent, w.PongsReceived)
		}
	})
}

// BenchmarkWebSocketOverHTTP2Echo64 is BenchmarkWebSocketEcho64 with
// --http2: each connection's WebSocket an extended CONNECT stream (h2c).
func BenchmarkWebSocketOverHTTP2Echo64(b *testing.B) {
	addr := wsH2Server(b, echo(false, nil), nil, true)
	benchRun(b, Config{URL: "ws://" + addr + "/ws", HTTP2: true, Connections: 50, Requests: int64(b.N)})
}

func TestWebSocketOverHTTP2AnswersTheServersPings(t *testing.T) {
	ws := echo(false, nil)
	ws.PingInterval = 100 * time.Millisecond // unanswered, the server resets the stream after another 100ms
	addr := wsH2Server(t, ws, nil, true)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", HTTP2: true, Connections: 3, Loops: 1, Duration: time.Second,
		WebSocket: WebSocketConfig{Hold: true}})
	w := res.WebSocket
	if w.Held != 3 || res.Reconnects != 0 || w.PingsReceived < 3*2 || w.PingsSent != 0 {
		t.Errorf("held %d reconnects %d pings received %d sent %d, want 3 held through the server's pings",
			w.Held, res.Reconnects, w.PingsReceived, w.PingsSent)
	}
}
