//go:build linux

package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/websocket"
	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
	"github.com/gust-http/gust/server"
)

// wsServer runs gust/server on loopback with ws at /ws (every other path
// answers 404), over TLS when tc is set, and returns its address.
func wsServer(t testing.TB, ws *server.WebSocket, tc *tls.Config) string {
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
		Config: server.Config{Loops: 1, TLS: tc},
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() { s.Close() })
	return s.Addr().String()
}

// echo is a WebSocket that echoes every message as it came, and counts
// the text messages among them.
func echo(deflate bool, texts *atomic.Int64) *server.WebSocket {
	return &server.WebSocket{Deflate: deflate, OnMessage: func(ws *server.WSConn, typ server.WSMessageType, data []byte) {
		if typ == server.WSText && texts != nil {
			texts.Add(1)
		}
		ws.Send(typ, data)
	}}
}

// selfSigned returns a server certificate's tls.Config and the TLSConfig
// of a client that trusts it.
func selfSigned(t testing.TB) (*tls.Config, TLSConfig) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.StartTLS()
	defer srv.Close()
	return &tls.Config{Certificates: srv.TLS.Certificates}, trusting(srv)
}

func wsRunOK(t *testing.T, cfg Config) *result.Result {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.WebSocket == nil || res.Protocol != result.ProtoWebSocket {
		t.Fatalf("protocol %q, websocket %v: not a WebSocket result", res.Protocol, res.WebSocket)
	}
	return res
}

func TestWebSocketEchoes(t *testing.T) {
	serverTLS, clientTLS := selfSigned(t)
	const n = 400
	for _, tc := range []struct {
		name     string
		scheme   string
		ws       WebSocketConfig
		body     string
		deflate  bool
		wantText bool
	}{
		{name: "binary messages of 64 bytes", scheme: "ws"},
		{name: "text messages, 4 in flight", scheme: "ws", ws: WebSocketConfig{Text: true, Inflight: 4}, wantText: true},
		{name: "a fixed text payload", scheme: "ws", ws: WebSocketConfig{Text: true}, body: "héllo, gust", wantText: true},
		{name: "permessage-deflate", scheme: "ws", ws: WebSocketConfig{Deflate: true, Size: 3000}, deflate: true},
		{name: "deflate offered to a server without it", scheme: "ws", ws: WebSocketConfig{Deflate: true}},
		{name: "wss", scheme: "wss", ws: WebSocketConfig{Inflight: 2}},
		{name: "wss with permessage-deflate", scheme: "wss", ws: WebSocketConfig{Deflate: true}, deflate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var texts atomic.Int64
			var stc *tls.Config
			if tc.scheme == "wss" {
				stc = serverTLS
			}
			addr := wsServer(t, echo(tc.deflate, &texts), stc)
			res := wsRunOK(t, Config{URL: tc.scheme + "://" + addr + "/ws", Connections: 4, Loops: 2, Requests: n,
				WebSocket: tc.ws, Body: []byte(tc.body), TLS: clientTLS})
			w := res.WebSocket
			if res.Requests != n || res.ErrorCount() != 0 || len(res.Status) != 0 {
				t.Fatalf("requests %d errors %v status %v, want %d messages echoed and nothing else", res.Requests, res.Errors, res.Status, n)
			}
			if w.Upgrades != 4 || w.UpgradeFailed != 0 || w.Upgrade.TotalCount() != 4 || res.Reconnects != 0 {
				t.Errorf("upgrades %d failed %d histogram %d reconnects %d, want 4 upgrades, one per connection",
					w.Upgrades, w.UpgradeFailed, w.Upgrade.TotalCount(), res.Reconnects)
			}
			size := int64(max(tc.ws.Size, 64))
			if tc.body != "" {
				size = int64(len(tc.body))
			}
			if w.MessagesSent != n || w.MessagesReceived != n || w.BytesSent != n*size || w.BytesReceived != n*size {
				t.Errorf("messages %d/%d bytes %d/%d, want %d each way of %d bytes", w.MessagesSent, w.MessagesReceived,
					w.BytesSent, w.BytesReceived, n, size)
			}
			if want := int64(0); tc.deflate {
				if w.Deflate != 4 {
					t.Errorf("deflate on %d connections, want 4", w.Deflate)
				}
				if size >= 1000 && res.BytesWritten > n*size/2 {
					t.Errorf("wrote %d bytes for %d messages of %d: not compressed", res.BytesWritten, n, size)
				}
			} else if w.Deflate != want {
				t.Errorf("deflate on %d connections, want none", w.Deflate)
			}
			if got := texts.Load(); (got == n) != tc.wantText || (got != 0) != tc.wantText {
				t.Errorf("server got %d text messages of %d (text: %v)", got, n, tc.wantText)
			}
			if w.Inflight != max(tc.ws.Inflight, 1) || w.Text != tc.ws.Text {
				t.Errorf("settings %+v", w)
			}
			if res.TLS == nil != (tc.scheme == "ws") {
				t.Errorf("TLS record %v for %s", res.TLS, tc.scheme)
			}
		})
	}
}

func TestWebSocketRefusedUpgradeIsAnErrorKindOfItsOwn(t *testing.T) {
	addr := wsServer(t, echo(false, nil), nil)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/elsewhere", Connections: 2, Loops: 1, Requests: 10})
	w := res.WebSocket
	if res.Requests != 0 || res.Errors[result.ErrUpgrade] != 10 || res.ErrorCount() != 10 {
		t.Errorf("requests %d errors %v, want 10 upgrade errors", res.Requests, res.Errors)
	}
	if w.Upgrades != 0 || w.UpgradeFailed < 10 || w.UpgradeStatus[404] != w.UpgradeFailed {
		t.Errorf("upgrades %d failed %d by status %v, want every one a 404", w.Upgrades, w.UpgradeFailed, w.UpgradeStatus)
	}
}

// TestWebSocketServerCloseIsCountedByCode: a server that closes on every
// fifth message has its closes counted by code. With an application's
// code the message in flight is lost (counted closed); with 1001 (going
// away) or 1012 (restarting) it goes out again on the next connection,
// counted retried, and every message is echoed.
func TestWebSocketServerCloseIsCountedByCode(t *testing.T) {
	for _, code := range []int{4001, 1001, 1012} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			var mu sync.Mutex
			seen := map[*server.WSConn]int{}
			ws := &server.WebSocket{OnMessage: func(c *server.WSConn, typ server.WSMessageType, data []byte) {
				mu.Lock()
				seen[c]++
				k := seen[c]
				mu.Unlock()
				if k == 5 {
					c.Close(code, "enough") // the fifth message is not echoed
					return
				}
				c.Send(typ, data)
			}}
			addr := wsServer(t, ws, nil)
			res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", Connections: 2, Loops: 1, Requests: 60})
			w := res.WebSocket
			closes := w.Closes[code]
			if code == 4001 && (closes < 10 || res.Errors[result.ErrClosed] != closes || res.Requests+closes != 60 || res.Retried != 0) {
				t.Errorf("closes %v, requests %d, errors %v, retried %d: want every fifth message closed by 4001 and counted closed", w.Closes, res.Requests, res.Errors, res.Retried)
			}
			if code != 4001 && (closes < 10 || res.ErrorCount() != 0 || res.Requests != 60 || res.Retried != closes) {
				t.Errorf("closes %v, requests %d, errors %v, retried %d: want every fifth message sent again and all 60 echoed", w.Closes, res.Requests, res.Errors, res.Retried)
			}
			if res.Reconnects < closes || w.Upgrades < closes {
				t.Errorf("reconnects %d, upgrades %d after %d closes: the connections were not reopened", res.Reconnects, w.Upgrades, closes)
			}
		})
	}
}

// halfEchoServer upgrades every connection, echoes its first message, and
// answers the second with half a frame before it closes the socket.
func halfEchoServer(t *testing.T) string {
	s := newRawServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		accept := websocket.AcceptKey(nil, []byte(req.Header.Get("Sec-WebSocket-Key")))
		c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + string(accept) + "\r\n\r\n"))
		frame := make([]byte, 2+4+64)
		for i := 0; ; i++ {
			if _, err := io.ReadFull(r, frame); err != nil {
				return
			}
			echo := websocket.AppendFrame(nil, websocket.OpBinary, true, false, make([]byte, 64), nil)
			if i == 1 {
				c.Write(echo[:30])
				return
			}
			c.Write(echo)
		}
	})
	return s.ln.Addr().String()
}

func TestWebSocketServerClosingMidMessage(t *testing.T) {
	addr := halfEchoServer(t)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/", Connections: 2, Loops: 1, Requests: 20})
	// Each socket echoes one message and cuts the next off, but the last
	// socket of each connection may end with the budget after its echo.
	closed := res.Errors[result.ErrClosed]
	if res.Requests+closed != 20 || res.ErrorCount() != closed || closed < 9 || res.Requests-closed > 2 {
		t.Errorf("requests %d errors %v, want about 10 echoed and 10 cut off (closed)", res.Requests, res.Errors)
	}
	if res.WebSocket.Upgrades < 10 {
		t.Errorf("%d upgrades, want one per socket", res.WebSocket.Upgrades)
	}
}

func TestWebSocketHold(t *testing.T) {
	t.Run("pings every --ws-ping and holds", func(t *testing.T) {
		addr := wsServer(t, echo(false, nil), nil)
		res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", Connections: 6, Loops: 2, Duration: time.Second,
			WebSocket: WebSocketConfig{Hold: true, Ping: 100 * time.Millisecond}})
		w := res.WebSocket
		if w.Held != 6 || w.Upgrades != 6 || res.Requests != 0 || res.ErrorCount() != 0 {
			t.Errorf("held %d upgrades %d requests %d errors %v, want 6 held and nothing else", w.Held, w.Upgrades, res.Requests, res.Errors)
		}
		if w.PingsSent < 6*4 || w.PingsSent > 6*11 || w.PongsReceived < w.PingsSent-6 || w.PongsReceived > w.PingsSent {
			t.Errorf("pings %d pongs %d, want about 10 a connection, each answered", w.PingsSent, w.PongsReceived)
		}
		if !w.Hold || w.Ping != 100*time.Millisecond || w.Inflight != 0 {
			t.Errorf("settings %+v", w)
		}
	})
	t.Run("answers the server's pings", func(t *testing.T) {
		ws := echo(false, nil)
		ws.PingInterval = 100 * time.Millisecond // unanswered, the server closes after another 100ms
		addr := wsServer(t, ws, nil)
		res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", Connections: 3, Loops: 1, Duration: time.Second,
			WebSocket: WebSocketConfig{Hold: true}})
		w := res.WebSocket
		if w.Held != 3 || res.Reconnects != 0 || w.PingsReceived < 3*2 || w.PingsSent != 0 {
			t.Errorf("held %d reconnects %d pings received %d sent %d, want 3 held through the server's pings",
				w.Held, res.Reconnects, w.PingsReceived, w.PingsSent)
		}
	})
}

func TestWebSocketOpenModel(t *testing.T) {
	addr := wsServer(t, echo(false, nil), nil)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", Connections: 4, Loops: 2, Rate: 400, Duration: time.Second})
	if res.Rate != 400 || !res.Scheduled() {
		t.Fatalf("rate %g: not an open-model result", res.Rate)
	}
	if res.Requests < 360-behind(res, 400) || res.Requests > 440 || res.ErrorCount() != 0 {
		t.Errorf("%d messages in 1s at 400/s, errors %v", res.Requests, res.Errors)
	}
	if n := res.Lateness.TotalCount(); n < res.Requests {
		t.Errorf("lateness of %d messages recorded for %d echoed", n, res.Requests)
	}
}

// TestWebSocketShardsMergeToTheirSum runs a WebSocket run as two shards
// against one server, writes each as gust load -o json does, reads them
// back and merges them: every WebSocket counter is the sum of the
// agents', the upgrade and latency histograms their sum.
func TestWebSocketShardsMergeToTheirSum(t *testing.T) {
	addr := wsServer(t, echo(false, nil), nil)
	var parts []result.Part
	var agents []*result.Result
	for i := range 2 {
		res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", Connections: 4, Loops: 1, Requests: 200,
			Shard: result.Shard{Index: i, Count: 2}, IntervalHistograms: true, WebSocket: WebSocketConfig{Inflight: 2}})
		agents = append(agents, res)
		var buf bytes.Buffer
		if err := report.JSON(&buf, res); err != nil {
			t.Fatal(err)
		}
		p, err := report.ReadResults(buf.Bytes(), fmt.Sprintf("agent%d.json", i))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p...)
	}
	m, err := result.Merge(parts, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	a, b := agents[0].WebSocket, agents[1].WebSocket
	w := m.WebSocket
	if m.Requests != 200 || m.Requests != agents[0].Requests+agents[1].Requests || m.Connections != 4 {
		t.Errorf("merged %d messages on %d connections, want 200 on 4", m.Requests, m.Connections)
	}
	if w.Upgrades != a.Upgrades+b.Upgrades || w.MessagesSent != a.MessagesSent+b.MessagesSent ||
		w.MessagesReceived != a.MessagesReceived+b.MessagesReceived || w.BytesSent != a.BytesSent+b.BytesSent ||
		w.BytesReceived != a.BytesReceived+b.BytesReceived || w.Held != a.Held+b.Held || w.Inflight != 2 {
		t.Errorf("merged %+v\nwant the sum of %+v\nand %+v", w, a, b)
	}
	sum := result.NewHistogram()
	sum.Merge(a.Upgrade)
	sum.Merge(b.Upgrade)
	if !w.Upgrade.Equals(sum) || w.Upgrade.TotalCount() != 4 {
		t.Error("the merged upgrade histogram is not the sum of the agents'")
	}
	lat := result.NewHistogram()
	lat.Merge(agents[0].Latency)
	lat.Merge(agents[1].Latency)
	if !m.Latency.Equals(lat) {
		t.Error("the merged latency histogram is not the sum of the agents'")
	}
}

// TestWebSocketGoingAwayFromEveryNewConnectionEnds: a server that closes
// every connection with 1001 before echoing anything does not make its
// messages go round forever: a message goes again on a few connections in
// a row (maxUnansweredRetries), then counts closed, and the run ends.
func TestWebSocketGoingAwayFromEveryNewConnectionEnds(t *testing.T) {
	ws := &server.WebSocket{OnMessage: func(c *server.WSConn, typ server.WSMessageType, data []byte) {
		c.Close(1001, "going away")
	}}
	addr := wsServer(t, ws, nil)
	res := wsRunOK(t, Config{URL: "ws://" + addr + "/ws", Connections: 1, Loops: 1, Requests: 3, Timeout: 5 * time.Second})
	if res.Interrupted || res.Retried != 3 || res.Errors[result.ErrClosed] != 3 {
		t.Errorf("interrupted %v, retried %d, errors %v: want 3 retries, then the 3 messages counted closed", res.Interrupted, res.Retried, res.Errors)
	}
}
