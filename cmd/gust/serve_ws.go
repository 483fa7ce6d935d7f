package main

import (
	"net/http"
	"time"

	"github.com/gust-http/gust/server"
)

// WebSocket on gust serve (gust engine): /ws echoes every message back as
// it came (text as text, binary as binary); /ws/broadcast sends every
// message to all connections on that path, the sender included. Other
// paths, and requests that do not ask to upgrade, get the hello answer.

// wsPaths are the two WebSocket endpoints.
const (
	wsEchoPath      = "/ws"
	wsBroadcastPath = "/ws/broadcast"
)

// wsEndpoints holds gust serve's two WebSockets and the broadcast group.
type wsEndpoints struct {
	echo, broadcast server.WebSocket
	group           server.WSGroup
}

// newWSEndpoints makes the endpoints; deflate accepts permessage-deflate
// (without context takeover: compressors come from a pool); ping is the
// server's ping interval (0: the default, negative: none).
func newWSEndpoints(deflate bool, ping time.Duration) *wsEndpoints {
	e := &wsEndpoints{}
	e.echo = server.WebSocket{
		Deflate:      deflate,
		PingInterval: ping,
		OnMessage: func(ws *server.WSConn, typ server.WSMessageType, data []byte) {
			ws.Send(typ, data) // a client past MaxBuffered loses the echo
		},
	}
	e.broadcast = server.WebSocket{
		Deflate:      deflate,
		PingInterval: ping,
		OnOpen:       func(ws *server.WSConn) { e.group.Add(ws) },
		OnMessage: func(ws *server.WSConn, typ server.WSMessageType, data []byte) {
			e.group.Broadcast(typ, data)
		},
	}
	return e
}

// of returns the WebSocket for path, or nil.
func (e *wsEndpoints) of(path string) *server.WebSocket {
	switch path {
	case wsEchoPath:
		return &e.echo
	case wsBroadcastPath:
		return &e.broadcast
	}
	return nil
}

// native wraps a native handler: upgrade requests for the WebSocket paths
// are accepted, the rest go to next.
func (e *wsEndpoints) native(next server.Handler) server.Handler {
	return server.HandlerFunc(func(c *server.Ctx) {
		if len(c.Header("Upgrade")) > 0 || len(c.Header(":protocol")) > 0 { // HTTP/1.1's upgrade or RFC 8441's CONNECT
			if ws := e.of(string(c.Path())); ws != nil {
				c.UpgradeWebSocket(ws) // a bad upgrade gets its 400 or 426
				return
			}
		}
		next.ServeGust(c)
	})
}

// nethttp wraps a net/http handler run on gust's adapter the same way.
func (e *wsEndpoints) nethttp(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" || r.Header.Get(":protocol") != "" {
			if ws := e.of(r.URL.Path); ws != nil {
				server.UpgradeWebSocket(w, r, ws)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
