//go:build linux

package server

import (
	"crypto/tls"
	"fmt"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/websocket"
)

// TestWSSKeysRestAfterAPingAndItsPong: a wss connection whose turn only
// answered a ping lets its TLS record keys rest at once (a held AES-GCM
// state is about 0.8 KB a direction, and an idle WebSocket's traffic is
// its pings), while a turn that echoed a message keeps them; the loop's
// own quiet pass, which would rest them anyway, is held off.
func TestWSSKeysRestAfterAPingAndItsPong(t *testing.T) {
	defer quietPeriod.Store(quietPeriod.Swap(int64(time.Hour)))
	// Each message is answered with whether the connection's sending
	// key was held when it arrived (the callback runs on the loop, the
	// TLS's owner).
	ws := &WebSocket{OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
		_, out := ws.c.tls.KeysHeld()
		ws.Send(WSText, fmt.Appendf(nil, "%s out=%v", data, out))
	}}
	s := startTLS(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) }), Config{})
	c := dialWSS(t, s, "/ws")
	c.send(websocket.OpText, "a")
	c.expect(websocket.EventMessage, websocket.OpText, 0, "a out=true") // the 101 went out sealed
	c.send(websocket.OpText, "b")
	c.expect(websocket.EventMessage, websocket.OpText, 0, "b out=true") // the echo of a kept it
	c.write(c.eng.AppendPing(nil, []byte("p")))
	c.expect(websocket.EventPong, 0, 0, "p")
	c.send(websocket.OpText, "c")
	c.expect(websocket.EventMessage, websocket.OpText, 0, "c out=false") // the pong's turn rested it
	c.send(websocket.OpText, "d")
	c.expect(websocket.EventMessage, websocket.OpText, 0, "d out=true") // keyed again to answer c
}

// TestWSSDropsTheConnectionState: a connection switched to WebSocket over
// TLS keeps only a brief of its TLS state (no Request will ask for the
// whole of it), which still names the version, suite and protocol.
func TestWSSDropsTheConnectionState(t *testing.T) {
	ws := &WebSocket{OnMessage: func(ws *WSConn, typ WSMessageType, data []byte) {
		st := ws.c.tls.ConnectionState()
		ws.Send(WSText, fmt.Appendf(nil, "v%x %s %s", st.Version, tls.CipherSuiteName(st.CipherSuite), st.NegotiatedProtocol))
	}}
	s := startTLS(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) }), Config{})
	c := dialWSS(t, s, "/ws")
	c.send(websocket.OpText, "?")
	cs := c.nc.(*tls.Conn).ConnectionState()
	c.expect(websocket.EventMessage, websocket.OpText, 0, fmt.Sprintf("v%x %s http/1.1", cs.Version, tls.CipherSuiteName(cs.CipherSuite)))
}
