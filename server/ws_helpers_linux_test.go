//go:build linux

package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/websocket"
)

// wsClient is a test's WebSocket client on internal/websocket's client
// side (the real clients' tests are in ws_clients_linux_test.go).
type wsClient struct {
	t    testing.TB
	nc   net.Conn
	r    *bufio.Reader
	eng  websocket.Conn
	resp *http.Response
	in   []byte
	got  []websocket.Event // copies of what arrived, in order
}

// dialWS opens a WebSocket to s at path, with extra header lines (each
// ending in CRLF), and checks the 101.
func dialWS(t testing.TB, s *Server, path, extra string) *wsClient {
	t.Helper()
	return switched(t, dialWSRaw(t, s, path, extra))
}

// switched fails t unless c's upgrade was answered 101, and returns c.
func switched(t testing.TB, c *wsClient) *wsClient {
	t.Helper()
	if c.resp.StatusCode != 101 {
		body, _ := io.ReadAll(c.resp.Body)
		t.Fatalf("upgrade answered %d: %s", c.resp.StatusCode, body)
	}
	return c
}

// dialWSRaw sends the opening handshake and reads the response, whatever
// it is.
func dialWSRaw(t testing.TB, s *Server, path, extra string) *wsClient {
	t.Helper()
	nc, r := rawConn(t, s)
	return upgradeOn(t, nc, r, path, extra)
}

// dialWSS opens a WebSocket over TLS to s at path and checks the 101.
func dialWSS(t testing.TB, s *Server, path string) *wsClient {
	t.Helper()
	nc := dialTLS(t, s, clientTLS(0))
	return switched(t, upgradeOn(t, nc, bufio.NewReader(nc), path, ""))
}

// upgradeOn sends the opening handshake on nc and reads the response,
// whatever it is.
func upgradeOn(t testing.TB, nc net.Conn, r *bufio.Reader, path, extra string) *wsClient {
	t.Helper()
	key := websocket.NewKey(nil)
	req, err := websocket.AppendClientHandshake(nil, "gust.test", path, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	req = append(req[:len(req)-2], extra+"\r\n"...)
	if _, err := nc.Write(req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading the upgrade's response: %v", err)
	}
	c := &wsClient{t: t, nc: nc, r: r, resp: resp}
	if resp.StatusCode == 101 {
		if err := websocket.CheckServerResponse(101, []byte(resp.Header.Get("Upgrade")), []byte(resp.Header.Get("Connection")),
			[]byte(resp.Header.Get("Sec-WebSocket-Accept")), key); err != nil {
			t.Fatal(err)
		}
		var p *websocket.DeflateParams
		if ext := resp.Header.Get("Sec-WebSocket-Extensions"); ext != "" {
			dp, err := websocket.ParseDeflateResponse([]byte(ext))
			if err != nil {
				t.Fatal(err)
			}
			p = &dp
		}
		c.eng.Init(websocket.Config{Client: true, Deflate: p})
	}
	return c
}

// send writes one message.
func (c *wsClient) send(op websocket.Opcode, p string) {
	c.t.Helper()
	b, err := c.eng.AppendMessage(nil, op, []byte(p))
	if err != nil {
		c.t.Fatal(err)
	}
	c.write(b)
}

func (c *wsClient) write(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next event from the server, reading as needed; ok is
// false if the connection ended first.
func (c *wsClient) next(d time.Duration) (e websocket.Event, ok bool) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	for len(c.got) == 0 {
		if len(c.in) > 0 {
			out, n, _ := c.eng.Feed(nil, c.in)
			for _, e := range c.eng.Events() {
				e.Payload = append([]byte(nil), e.Payload...)
				c.got = append(c.got, e)
			}
			c.in = c.in[n:]
			if len(out) > 0 {
				c.nc.Write(out)
			}
			if len(c.got) > 0 || n > 0 && len(c.in) > 0 {
				continue
			}
		}
		buf := make([]byte, 64<<10)
		n, err := c.r.Read(buf)
		c.in = append(c.in, buf[:n]...)
		if n == 0 && err != nil {
			return websocket.Event{}, false
		}
	}
	e = c.got[0]
	c.got = c.got[1:]
	return e, true
}

// expect reads the next event and checks its kind, opcode or code, and
// payload.
func (c *wsClient) expect(kind websocket.EventKind, op websocket.Opcode, code int, payload string) {
	c.t.Helper()
	e, ok := c.next(5 * time.Second)
	if !ok {
		c.t.Fatalf("connection ended; want %v %q", kind, payload)
	}
	if e.Kind != kind || kind == websocket.EventMessage && e.Op != op || kind == websocket.EventClose && e.Code != code || string(e.Payload) != payload {
		c.t.Fatalf("got %v op %d code %d %q; want %v op %d code %d %q", e.Kind, e.Op, e.Code, short(e.Payload), kind, op, code, short([]byte(payload)))
	}
}

// expectClose reads the next event, which must be a close with code
// (whatever its reason).
func (c *wsClient) expectClose(code int) {
	c.t.Helper()
	e, ok := c.next(5 * time.Second)
	if !ok || e.Kind != websocket.EventClose || e.Code != code {
		c.t.Fatalf("got %v (ended: %v) code %d %q; want a close with %d", e.Kind, !ok, e.Code, e.Payload, code)
	}
}

func short(p []byte) string {
	if len(p) > 64 {
		return string(p[:64]) + "..."
	}
	return string(p)
}

// wsEcho is the echo WebSocket of the tests: every message back as it
// came; "close" closes with 4000.
func wsEcho() *WebSocket {
	return &WebSocket{
		OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
			if string(data) == "close" {
				ws.Close(4000, "asked to")
				return
			}
			ws.Send(typ, data)
		},
	}
}
