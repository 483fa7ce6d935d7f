// Command gorillaws is the gorilla/websocket peer: gorilla/websocket on
// net/http, a goroutine per connection, answering gust serve's WebSocket
// paths. /ws echoes every message back as it came (text as text, binary as
// binary), in order; /ws/broadcast sends every message to all connections
// on that path, the sender included. Every other request gets hello's
// "Hello, Go!".
//
// Flags: those of every peer (-addr, default 127.0.0.1:8084; -delay for
// the hello answer; -debug-addr; -tls-cert FILE -tls-key FILE or
// -tls-self-signed for wss over crypto/tls, HTTP/1.1 alone) and
// -ws-deflate to accept permessage-deflate (gorilla compresses without
// context takeover). SIGINT or SIGTERM shut it down within 5 s.
package main

import (
	"flag"
	"net/http"

	"github.com/gorilla/websocket"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

var deflateFlag = flag.Bool("ws-deflate", false, "accept permessage-deflate (without context takeover)")

func main() { peer.Main("gorillaws", "127.0.0.1:8084", run) }

func run(f peer.Flags) error {
	return peer.ServeHTTP("gorillaws", f, newHandler(f, *deflateFlag))
}

// newHandler returns the peer's handler: the WebSocket paths, hello on
// the others.
func newHandler(f peer.Flags, deflate bool) http.Handler {
	e := &endpoints{up: websocket.Upgrader{
		EnableCompression: deflate,
		// The peer is measured, not guarded: any origin may connect.
		CheckOrigin: func(*http.Request) bool { return true },
	}}
	return peer.WSRoutes(http.HandlerFunc(e.echo), http.HandlerFunc(e.broadcast), hello.Handler(nil, f.Delay))
}

type endpoints struct {
	up  websocket.Upgrader
	hub peer.Hub[*websocket.PreparedMessage]
}

// echo reads and writes on the handler's goroutine, gorilla's one reader
// and one writer, so echoes leave in the order messages came.
func (e *endpoints) echo(w http.ResponseWriter, r *http.Request) {
	ws, err := e.up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the error
	}
	defer ws.Close()
	ws.SetReadLimit(peer.WSMaxMessage)
	for {
		typ, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if err := ws.WriteMessage(typ, data); err != nil {
			return
		}
	}
}

// broadcast joins the connection to the hub before the upgrade, so that a
// client that has its 101 is already a receiver. The handler's goroutine
// reads; a writer goroutine of the connection's own drains its outbox
// (gorilla allows one concurrent writer). A message is framed, and
// compressed, once for all receivers: a PreparedMessage.
func (e *endpoints) broadcast(w http.ResponseWriter, r *http.Request) {
	m := e.hub.Join()
	defer e.hub.Leave(m)
	ws, err := e.up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	ws.SetReadLimit(peer.WSMaxMessage)
	go func() {
		for pm := range m.Out {
			if err := ws.WritePreparedMessage(pm); err != nil {
				ws.Close() // the reader fails and leaves
				for range m.Out {
				}
				return
			}
		}
	}()
	for {
		typ, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		pm, err := websocket.NewPreparedMessage(typ, data)
		if err != nil {
			return
		}
		e.hub.Broadcast(pm)
	}
}
