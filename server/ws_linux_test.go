//go:build linux

package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/websocket"
)

// wsSetups are the ways a WebSocket reaches a handler: the native API in
// every mode, and the net/http adapter in the modes it runs in.
func wsSetups(ws *WebSocket) []struct {
	name string
	h    Handler
	mode Mode
} {
	native := HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) })
	adapter := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Adapter", "yes")
		UpgradeWebSocket(w, r, ws)
	}))
	return []struct {
		name string
		h    Handler
		mode Mode
	}{
		{"native Inline", native, Inline},
		{"native Auto", native, Auto},
		{"native Pooled", native, Pooled},
		{"adapter Auto", adapter, Auto},
		{"adapter Pooled", adapter, Pooled},
	}
}

func TestWebSocketEchoesInEveryMode(t *testing.T) {
	for _, setup := range wsSetups(wsEcho()) {
		t.Run(setup.name, func(t *testing.T) {
			s := start(t, setup.h, Config{Mode: setup.mode})
			c := dialWS(t, s, "/ws", "")
			c.send(websocket.OpText, "hello")
			c.expect(websocket.EventMessage, websocket.OpText, 0, "hello")
			c.send(websocket.OpBinary, "\x00\x01\x02")
			c.expect(websocket.EventMessage, websocket.OpBinary, 0, "\x00\x01\x02")
			big := strings.Repeat("0123456789", 50_000) // 500 kB: many reads, one message
			c.send(websocket.OpBinary, big)
			c.expect(websocket.EventMessage, websocket.OpBinary, 0, big)
			c.write(c.eng.AppendPing(nil, []byte("are you there")))
			c.expect(websocket.EventPong, 0, 0, "are you there")
			c.send(websocket.OpText, "close")
			c.expect(websocket.EventClose, 0, 4000, "asked to")
			if st := s.Stats(); st.Goroutines > 64 {
				t.Errorf("%d goroutines for one WebSocket", st.Goroutines)
			}
		})
	}
}

func TestWebSocketFramesSentWithTheUpgradeAreServed(t *testing.T) {
	s := start(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(wsEcho()) }), Config{Mode: Inline})
	nc, r := rawConn(t, s)
	var client websocket.Conn
	client.Init(websocket.Config{Client: true})
	req, _ := websocket.AppendClientHandshake(nil, "x", "/", websocket.NewKey(nil), nil, nil)
	req, _ = client.AppendMessage(req, websocket.OpText, []byte("early"))
	nc.Write(req)
	c := &wsClient{t: t, nc: nc, r: r}
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	c.resp = resp
	c.eng.Init(websocket.Config{Client: true})
	c.expect(websocket.EventMessage, websocket.OpText, 0, "early")
}

func TestWebSocketUpgradeRefusals(t *testing.T) {
	s := start(t, HandlerFunc(func(c *Ctx) {
		if err := c.UpgradeWebSocket(wsEcho()); err == nil {
			t.Error("a bad upgrade was accepted")
		}
	}), Config{Mode: Inline})
	good := "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	for _, tt := range []struct {
		name, from, to string
		status         int
		reason         string
	}{
		{"a POST", "GET /ws", "POST /ws", 400, "must be a GET"},
		{"HTTP/1.0", "HTTP/1.1\r\n", "HTTP/1.0\r\n", 400, "needs HTTP/1.1"},
		{"no Upgrade", "Upgrade: websocket\r\n", "", 400, "Upgrade must name websocket"},
		{"Upgrade naming another protocol", "Upgrade: websocket", "Upgrade: h2c", 400, "Upgrade must name websocket"},
		{"no upgrade token in Connection", "Connection: Upgrade", "Connection: keep-alive", 400, "Connection must name upgrade"},
		{"version 8", "Version: 13", "Version: 8", 426, "Version must be 13"},
		{"a missing key", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", "", 400, "Sec-WebSocket-Key"},
		{"a key of 15 bytes", "dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25j", 400, "Sec-WebSocket-Key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := exchange(t, s, strings.Replace(good, tt.from, tt.to, 1)+"\r\n")
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.reason) {
				t.Errorf("got %d %q; want %d with %q", resp.StatusCode, body, tt.status, tt.reason)
			}
			if tt.status == 426 && resp.Header.Get("Sec-WebSocket-Version") != "13" {
				t.Errorf("426 without Sec-WebSocket-Version: 13")
			}
		})
	}
}

func TestWebSocketAdapterSendsItsHeadersWithThe101(t *testing.T) {
	s := start(t, wsSetups(wsEcho())[3].h, Config{Mode: Auto})
	c := dialWS(t, s, "/", "")
	if got := c.resp.Header.Get("X-Adapter"); got != "yes" {
		t.Errorf("X-Adapter = %q, want yes", got)
	}
}

func TestWebSocketProtocolFaultsGetTheirCloseCodes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ws    *WebSocket
		frame func(c *wsClient) []byte
		code  int
	}{
		{"an unmasked frame", wsEcho(), func(c *wsClient) []byte {
			return websocket.AppendFrame(nil, websocket.OpText, true, false, []byte("hi"), nil)
		}, websocket.CloseProtocolError},
		{"invalid UTF-8 in a text message", wsEcho(), func(c *wsClient) []byte {
			return websocket.AppendFrame(nil, websocket.OpText, true, false, []byte{0xff, 0xfe}, &[4]byte{1, 2, 3, 4})
		}, websocket.CloseInvalidPayload},
		{"a frame announcing 2^63-1 bytes", wsEcho(), func(c *wsClient) []byte {
			return []byte{0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}
		}, websocket.CloseTooBig},
		{"a message over MaxMessage", &WebSocket{MaxMessage: 1000}, func(c *wsClient) []byte {
			b, _ := c.eng.AppendMessage(nil, websocket.OpBinary, make([]byte, 1001))
			return b
		}, websocket.CloseTooBig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got = make(chan int, 1)
			ws := *tt.ws
			ws.OnClose = func(_ *WSConn, code int, _ string) { got <- code }
			s := start(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(&ws) }), Config{Mode: Inline})
			c := dialWS(t, s, "/", "")
			c.write(tt.frame(c))
			c.expectClose(tt.code)
			select {
			case code := <-got:
				if code != tt.code {
					t.Errorf("OnClose saw %d, want %d", code, tt.code)
				}
			case <-time.After(5 * time.Second):
				t.Error("OnClose was not called")
			}
		})
	}
}
