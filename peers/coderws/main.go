// Command coderws is the coder/websocket peer: coder/websocket on
// net/http, a goroutine per connection, answering gust serve's WebSocket
// paths. /ws echoes every message back as it came (text as text, binary as
// binary), in order; /ws/broadcast sends every message to all connections
// on that path, the sender included. Every other request gets hello's
// "Hello, Go!".
//
// Flags: those of every peer (-addr, default 127.0.0.1:8085; -delay for
// the hello answer; -debug-addr; -tls-cert FILE -tls-key FILE or
// -tls-self-signed for wss over crypto/tls, HTTP/1.1 alone) and
// -ws-deflate to accept permessage-deflate without context takeover
// (coder/websocket then compresses messages of 512 bytes or more, its
// default threshold). SIGINT or SIGTERM shut it down within 5 s.
package main

import (
	"context"
	"flag"
	"net/http"

	"github.com/coder/websocket"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

var deflateFlag = flag.Bool("ws-deflate", false, "accept permessage-deflate (without context takeover)")

func main() { peer.Main("coderws", "127.0.0.1:8085", run) }

func run(f peer.Flags) error {
	return peer.ServeHTTP("coderws", f, newHandler(f, *deflateFlag))
}

// newHandler returns the peer's handler: the WebSocket paths, hello on
// the others.
func newHandler(f peer.Flags, deflate bool) http.Handler {
	// The peer is measured, not guarded: any origin may connect.
	e := &endpoints{opts: websocket.AcceptOptions{InsecureSkipVerify: true}}
	if deflate {
		e.opts.CompressionMode = websocket.CompressionNoContextTakeover
	}
	return peer.WSRoutes(http.HandlerFunc(e.echo), http.HandlerFunc(e.broadcast), hello.Handler(nil, f.Delay))
}

type endpoints struct {
	opts websocket.AcceptOptions
	hub  peer.Hub[message]
}

// message is a broadcast message as coder/websocket writes it.
type message struct {
	typ  websocket.MessageType
	data []byte
}

func (e *endpoints) accept(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	ws, err := websocket.Accept(w, r, &e.opts)
	if err != nil {
		return nil // Accept has answered the error
	}
	ws.SetReadLimit(peer.WSMaxMessage)
	return ws
}

// echo reads and writes on the handler's goroutine, so echoes leave in
// the order messages came.
func (e *endpoints) echo(w http.ResponseWriter, r *http.Request) {
	ws := e.accept(w, r)
	if ws == nil {
		return
	}
	defer ws.CloseNow()
	ctx := context.Background()
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if err := ws.Write(ctx, typ, data); err != nil {
			return
		}
	}
}

// broadcast joins the connection to the hub before the upgrade, so that a
// client that has its 101 is already a receiver. The handler's goroutine
// reads; a writer goroutine of the connection's own drains its outbox, so
// that a slow receiver holds up no sender (Write is safe from any
// goroutine, but waits for the socket).
func (e *endpoints) broadcast(w http.ResponseWriter, r *http.Request) {
	m := e.hub.Join()
	defer e.hub.Leave(m)
	ws := e.accept(w, r)
	if ws == nil {
		return
	}
	defer ws.CloseNow()
	ctx := context.Background()
	go func() {
		for msg := range m.Out {
			if err := ws.Write(ctx, msg.typ, msg.data); err != nil {
				ws.CloseNow() // the reader fails and leaves
				for range m.Out {
				}
				return
			}
		}
	}()
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		e.hub.Broadcast(message{typ, data}) // data is the reader's to give: Read allocates it
	}
}
