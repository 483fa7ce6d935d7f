package main

import (
	"net/http"
	"sync"

	"github.com/lesismal/nbio/nbhttp/websocket"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

// newHandler returns the peer's handler: gust serve's WebSocket paths on
// nbio's websocket, hello on the others. The upgraded connections stay on
// nbio's event loops: their callbacks run on its executor, one at a time
// per connection, and a write queues on the connection without waiting
// for the socket.
func newHandler(f peer.Flags, deflate bool) http.Handler {
	echo := upgrader(deflate)
	echo.OnMessage(func(c *websocket.Conn, typ websocket.MessageType, data []byte) {
		_ = c.WriteMessage(typ, data) // a failed write closes c
	})
	b := &broadcast{conns: map[*websocket.Conn]struct{}{}}
	bu := upgrader(deflate)
	bu.OnOpen(b.add)
	bu.OnClose(b.remove)
	bu.OnMessage(b.send)
	return peer.WSRoutes(upgrade(echo), upgrade(bu), hello.Handler(nil, f.Delay))
}

// upgrader returns an Upgrader as the peers have them: any origin, the
// peers' message limit, permessage-deflate (no context takeover, nbio's
// only kind) when deflate, and no read deadline, so that an idle
// WebSocket stays open as on the other peers (nbio's default closes one
// silent for 120 s).
func upgrader(deflate bool) *websocket.Upgrader {
	u := websocket.NewUpgrader()
	u.CheckOrigin = func(*http.Request) bool { return true }
	u.MessageLengthLimit = peer.WSMaxMessage
	u.KeepaliveTime = 0
	u.EnableCompression(deflate)
	return u
}

// upgrade is the handler of one WebSocket path: the connection is nbio's
// from then on; a failed upgrade has been answered.
func upgrade(u *websocket.Upgrader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = u.Upgrade(w, r, nil)
	})
}

// broadcast is the set of connections on /ws/broadcast. A message is
// written to each under the lock: nbio's writes do not wait for the
// socket, so a slow receiver holds up no one (nbio queues its bytes).
type broadcast struct {
	mu    sync.Mutex
	conns map[*websocket.Conn]struct{}
}

func (b *broadcast) add(c *websocket.Conn) {
	b.mu.Lock()
	b.conns[c] = struct{}{}
	b.mu.Unlock()
}

func (b *broadcast) remove(c *websocket.Conn, _ error) {
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
}

func (b *broadcast) send(_ *websocket.Conn, typ websocket.MessageType, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.conns {
		_ = c.WriteMessage(typ, data)
	}
}
