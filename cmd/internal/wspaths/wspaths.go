package wspaths

import (
	"net/http"
	"time"

	"github.com/gust-http/gust/server"
)

// The two WebSocket endpoints' paths.
const (
	EchoPath      = "/ws"
	BroadcastPath = "/ws/broadcast"
)

// Endpoints holds the two WebSockets and the broadcast group.
type Endpoints struct {
	echo, broadcast server.WebSocket
	group           server.WSGroup
}

// New makes the endpoints; deflate accepts permessage-deflate
// (without context takeover: compressors come from a pool); ping is the
// server's ping interval (0: the default, negative: none).
func New(deflate bool, ping time.Duration) *Endpoints {
	e := &Endpoints{}
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

// Of returns the WebSocket for path, or nil.
func (e *Endpoints) Of(path string) *server.WebSocket {
	switch path {
	case EchoPath:
		return &e.echo
	case BroadcastPath:
		return &e.broadcast
	}
	return nil
}

// Native wraps a native handler: upgrade requests for the WebSocket paths
// are accepted, the rest go to next.
func (e *Endpoints) Native(next server.Handler) server.Handler {
	return server.HandlerFunc(func(c *server.Ctx) {
		if len(c.Header("Upgrade")) > 0 || len(c.Header(":protocol")) > 0 { // HTTP/1.1's upgrade or RFC 8441's CONNECT
			if ws := e.Of(string(c.Path())); ws != nil {
				c.UpgradeWebSocket(ws) // a bad upgrade gets its 400 or 426
				return
			}
		}
		next.ServeGust(c)
	})
}

// NetHTTP wraps a net/http handler run on gust's adapter the same way.
func (e *Endpoints) NetHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" || r.Header.Get(":protocol") != "" {
			if ws := e.Of(r.URL.Path); ws != nil {
				server.UpgradeWebSocket(w, r, ws)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
