//go:build linux

package server

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

func TestWebSocketOverH2EchoesInEveryModeOverH2CAndTLS(t *testing.T) {
	for _, overTLS := range []bool{false, true} {
		for _, setup := range h2wsSetups(wsEcho()) {
			name := "h2c " + setup.name
			if overTLS {
				name = "h2 " + setup.name
			}
			t.Run(name, func(t *testing.T) {
				s := serveForTest(t, &Server{Handler: setup.h, Config: h2wsConfig(setup.mode, overTLS)})
				c := dialH2WS(t, s, overTLS)
				if !c.cc.PeerSettings().EnableConnectProtocol {
					t.Fatal("SETTINGS_ENABLE_CONNECT_PROTOCOL not advertised")
				}
				st := c.open("/ws", "websocket")
				if got := st.answered(); got != 200 {
					t.Fatalf("extended CONNECT answered %d, want 200", got)
				}
				if st.field("content-length") != "" || st.field("sec-websocket-accept") != "" {
					t.Errorf("a 200 to CONNECT with content-length or sec-websocket-accept: %v", c.headers[st.tag])
				}
				if strings.HasPrefix(setup.name, "adapter") && st.field("x-adapter") != "yes" {
					t.Errorf("the adapter's header did not go out with the 200: %v", c.headers[st.tag])
				}
				st.send(websocket.OpText, "hello")
				st.expect(websocket.EventMessage, websocket.OpText, 0, "hello")
				st.send(websocket.OpBinary, "\x00\x01\x02")
				st.expect(websocket.EventMessage, websocket.OpBinary, 0, "\x00\x01\x02")
				big := strings.Repeat("0123456789", 50_000) // 500 kB: many DATA frames, one message
				st.send(websocket.OpBinary, big)
				st.expect(websocket.EventMessage, websocket.OpBinary, 0, big)
				st.sendRaw(st.eng.AppendPing(nil, []byte("are you there")))
				st.expect(websocket.EventPong, 0, 0, "are you there")
				st.send(websocket.OpText, "close")
				st.expect(websocket.EventClose, 0, 4000, "asked to")
				c.wait(5*time.Second, "END_STREAM after the close handshake", func() bool { return st.ended || st.reset })
				if !st.ended || st.reset && st.code != http2.ErrCodeNo {
					t.Errorf("stream ended %v, reset %v (%v); want END_STREAM", st.ended, st.reset, st.code)
				}
				// The connection goes on.
				g := c.get("/after")
				c.wait(5*time.Second, "a request after the WebSocket", func() bool { return g.ended })
				if string(g.body) != "hello" {
					t.Errorf("after the WebSocket: %q", g.body)
				}
			})
		}
	}
}

func TestWebSocketOverH2NegotiatesDeflateAndSubprotocol(t *testing.T) {
	ws := wsEcho()
	ws.Deflate, ws.Subprotocols = true, []string{"chat"}
	s := serveForTest(t, &Server{Handler: h2wsSetups(ws)[0].h, Config: h2wsConfig(Inline, false)})
	c := dialH2WS(t, s, false)
	st := c.open("/ws", "websocket", http2.Field{Name: "sec-websocket-extensions", Value: "permessage-deflate; client_max_window_bits"},
		http2.Field{Name: "sec-websocket-protocol", Value: "other, chat"})
	if got := st.answered(); got != 200 {
		t.Fatalf("answered %d", got)
	}
	if got := st.field("sec-websocket-protocol"); got != "chat" {
		t.Errorf("subprotocol %q, want chat", got)
	}
	if got := st.field("sec-websocket-extensions"); !strings.HasPrefix(got, "permessage-deflate") {
		t.Fatalf("extensions %q, want permessage-deflate", got)
	}
	msg := strings.Repeat("compress me ", 1000)
	st.send(websocket.OpText, msg)
	st.expect(websocket.EventMessage, websocket.OpText, 0, msg)
}

func TestWebSocketOverH2InterleavesWithRequests(t *testing.T) {
	for _, setup := range h2wsSetups(wsEcho()) {
		t.Run(setup.name, func(t *testing.T) {
			s := serveForTest(t, &Server{Handler: setup.h, Config: h2wsConfig(setup.mode, false)})
			c := dialH2WS(t, s, false)
			a := c.open("/ws", "websocket")
			b := c.open("/ws/second", "websocket")
			if a.answered() != 200 || b.answered() != 200 {
				t.Fatalf("answered %d and %d", a.status, b.status)
			}
			for i := range 20 {
				g := c.get(fmt.Sprintf("/plain/%d", i))
				a.send(websocket.OpText, fmt.Sprint("a", i))
				b.send(websocket.OpBinary, fmt.Sprint("b", i))
				a.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprint("a", i))
				b.expect(websocket.EventMessage, websocket.OpBinary, 0, fmt.Sprint("b", i))
				c.wait(5*time.Second, "the plain response", func() bool { return g.ended })
				if g.status != 200 || string(g.body) != "hello" {
					t.Fatalf("request %d beside the WebSockets: %d %q", i, g.status, g.body)
				}
			}
			// One WebSocket's protocol fault ends its stream alone.
			a.sendRaw([]byte{0x81, 0x05, 'h', 'e', 'l', 'l', 'o'}) // unmasked: 1002
			a.expect(websocket.EventClose, 0, websocket.CloseProtocolError, "unmasked frame from a client")
			b.send(websocket.OpText, "still here")
			b.expect(websocket.EventMessage, websocket.OpText, 0, "still here")
			g := c.get("/plain/last")
			c.wait(5*time.Second, "the last plain response", func() bool { return g.ended })
		})
	}
}

func TestWebSocketOverH2ServerCloseAndReset(t *testing.T) {
	ws := wsEcho()
	closed := make(chan int, 1)
	ws.OnClose = func(_ *WSConn, code int, _ string) { closed <- code }
	s := serveForTest(t, &Server{Handler: h2wsSetups(ws)[0].h, Config: h2wsConfig(Inline, false)})
	c := dialH2WS(t, s, false)
	st := c.open("/ws", "websocket")
	st.answered()
	st.send(websocket.OpText, "hi")
	st.expect(websocket.EventMessage, websocket.OpText, 0, "hi")
	c.write(http2.AppendRSTStream(nil, st.id, http2.ErrCodeCancel))
	select {
	case code := <-closed:
		if code != websocket.CloseAbnormal {
			t.Errorf("OnClose after RST_STREAM: %d, want 1006", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnClose after RST_STREAM")
	}
	g := c.get("/plain")
	c.wait(5*time.Second, "a request after the reset", func() bool { return g.ended })
}

func TestWebSocketOverH2Refusals(t *testing.T) {
	native := HandlerFunc(func(c *Ctx) {
		if err := c.UpgradeWebSocket(wsEcho()); err == nil {
			t.Error("a bad upgrade was accepted")
		}
	})
	for _, tt := range []struct {
		name    string
		proto   string
		fields  []http2.Field
		status  int
		connect bool // the setting advertised
	}{
		{"version 8", "websocket", []http2.Field{{Name: "sec-websocket-version", Value: "8"}}, 426, true},
		{"another protocol", "chat", nil, 400, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := serveForTest(t, &Server{Handler: native, Config: h2wsConfig(Inline, false)})
			c := dialH2WS(t, s, false)
			st := c.open("/ws", tt.proto, tt.fields...)
			if got := st.answered(); got != tt.status {
				t.Errorf("answered %d, want %d", got, tt.status)
			}
			if tt.status == 426 && st.field("sec-websocket-version") != "13" {
				t.Errorf("426 without sec-websocket-version: 13")
			}
		})
	}
	t.Run("a GET over HTTP/2", func(t *testing.T) {
		s := serveForTest(t, &Server{Handler: native, Config: h2wsConfig(Inline, false)})
		c := dialH2WS(t, s, false)
		g := c.get("/ws")
		c.wait(5*time.Second, "the response", func() bool { return g.ended })
		if g.status != 400 || !strings.Contains(string(g.body), "extended CONNECT") {
			t.Errorf("got %d %q", g.status, g.body)
		}
	})
	t.Run("extended CONNECT not advertised", func(t *testing.T) {
		cfg := h2wsConfig(Inline, false)
		cfg.HTTP2.ExtendedConnect = false
		s := serveForTest(t, &Server{Handler: native, Config: cfg})
		c := dialH2WS(t, s, false)
		if c.cc.PeerSettings().EnableConnectProtocol {
			t.Fatal("SETTINGS_ENABLE_CONNECT_PROTOCOL advertised without ExtendedConnect")
		}
		st := c.open("/ws", "websocket")
		st.answered()
		if !st.reset || st.code != http2.ErrCodeProtocol {
			t.Errorf("status %d reset %v code %v; want RST_STREAM(PROTOCOL_ERROR)", st.status, st.reset, st.code)
		}
	})
}

// TestWebSocketOverH2WithNodeHTTP2 is the real peer: Node's own http2
// client doing RFC 8441 (it sends :protocol only once the server's
// SETTINGS allow it), over h2c and TLS.
func TestWebSocketOverH2WithNodeHTTP2(t *testing.T) {
	needClient(t, []string{"node"})
	for _, overTLS := range []bool{false, true} {
		for _, setup := range h2wsSetups(wsEcho())[3:4] { // the adapter, Auto
			t.Run(fmt.Sprint("tls=", overTLS), func(t *testing.T) {
				s := serveForTest(t, &Server{Handler: setup.h, Config: h2wsConfig(setup.mode, overTLS)})
				url := "http://" + s.Addr().String() + "/ws"
				if overTLS {
					url = "https://" + s.Addr().String() + "/ws"
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				out, err := exec.CommandContext(ctx, "node", "testdata/clients/node_h2ws.mjs", url).CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if got, want := strings.TrimSpace(string(out)), "ok close=4000 connect_protocol=true"; got != want {
					t.Errorf("got %q, want %q", got, want)
				}
			})
		}
	}
}

func TestWebSocketOverH2FramesSentBeforeThe200AreServed(t *testing.T) {
	for _, setup := range h2wsSetups(wsEcho()) {
		t.Run(setup.name, func(t *testing.T) {
			s := serveForTest(t, &Server{Handler: setup.h, Config: h2wsConfig(setup.mode, false)})
			c := dialH2WS(t, s, false)
			st := c.open("/ws", "websocket")
			var early websocket.Conn
			early.Init(websocket.Config{Client: true})
			b, _ := early.AppendMessage(nil, websocket.OpText, []byte("early"))
			st.sendRaw(b) // right behind the HEADERS, before the handler ran
			if got := st.answered(); got != 200 {
				t.Fatalf("answered %d", got)
			}
			st.expect(websocket.EventMessage, websocket.OpText, 0, "early")
			st.send(websocket.OpText, "later")
			st.expect(websocket.EventMessage, websocket.OpText, 0, "later")
		})
	}
}

func TestWebSocketOverH2PingFloodUnreadIsBoundedByTheWindow(t *testing.T) {
	ws := wsEcho()
	ws.MaxBuffered = 64 << 10
	s := serveForTest(t, &Server{Handler: h2wsSetups(ws)[0].h, Config: h2wsConfig(Inline, false)})
	// A client that reads frames (the server's WINDOW_UPDATEs) but opens
	// its own stream window one byte at a time: the pongs pile up in the
	// server, which must stop giving the pings' window back.
	c := dialH2WSConfig(t, s, false, http2.ClientConfig{StreamWindow: 1})
	st := c.open("/ws", "websocket")
	st.answered()
	ping := st.eng.AppendPing(nil, make([]byte, 125))
	var flood []byte
	for range 200 {
		flood = append(flood, ping...)
	}
	sent, stalledSince := 0, time.Time{}
	for deadline := time.Now().Add(5 * time.Second); sent < 8<<20 && time.Now().Before(deadline); {
		if c.cc.Pending(st.id) > 0 {
			if stalledSince.IsZero() {
				stalledSince = time.Now()
			} else if time.Since(stalledSince) > 500*time.Millisecond {
				break // no window for half a second: the server holds it
			}
			c.read(20 * time.Millisecond)
			continue
		}
		stalledSince = time.Time{}
		out, err := c.cc.WriteData(nil, st.id, append([]byte(nil), flood...), false)
		if err != nil {
			t.Fatal(err)
		}
		c.write(out)
		sent += len(flood)
	}
	if sent >= 8<<20 || stalledSince.IsZero() {
		t.Fatalf("sent %d bytes of pings with the pongs unread: the server kept giving window", sent)
	}
	t.Logf("the stream's window stayed shut after %d bytes of pings", sent)
}

func TestWebSocketOverH2ShutdownClosesWith1001(t *testing.T) {
	ws := wsEcho()
	closed := make(chan int, 1)
	ws.OnClose = func(_ *WSConn, code int, _ string) { closed <- code }
	s := &Server{Handler: h2wsSetups(ws)[0].h, Config: h2wsConfig(Inline, false)}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	c := dialH2WS(t, s, false)
	st := c.open("/ws", "websocket")
	st.answered()
	st.send(websocket.OpText, "hi")
	st.expect(websocket.EventMessage, websocket.OpText, 0, "hi")
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- s.Shutdown(ctx)
	}()
	st.expect(websocket.EventClose, 0, websocket.CloseGoingAway, "server shutting down") // our reply goes out as DATA
	c.wait(5*time.Second, "the stream's end", func() bool { return st.ended || st.reset })
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if code := <-closed; code != websocket.CloseGoingAway {
		t.Errorf("OnClose %d, want 1001", code)
	}
}
