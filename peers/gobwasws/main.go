// Command gobwasws is the gobwas/ws peer: gobwas/ws on net/http, a
// goroutine per connection reading with wsutil's frame Reader, answering
// gust serve's WebSocket paths. /ws echoes every message back as it came
// (text as text, binary as binary), in order; /ws/broadcast sends every
// message to all connections on that path, the sender included. Every
// other request gets hello's "Hello, Go!".
//
// Flags: those of every peer (-addr, default 127.0.0.1:8086; -delay for
// the hello answer; -debug-addr; -tls-cert FILE -tls-key FILE or
// -tls-self-signed for wss over crypto/tls, HTTP/1.1 alone) and
// -ws-deflate to accept permessage-deflate without context takeover
// (wsflate; compress/flate at BestSpeed, compressors pooled). SIGINT or
// SIGTERM shut it down within 5 s.
package main

import (
	"flag"
	"net/http"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

var deflateFlag = flag.Bool("ws-deflate", false, "accept permessage-deflate (without context takeover)")

func main() { peer.Main("gobwasws", "127.0.0.1:8086", run) }

func run(f peer.Flags) error {
	return peer.ServeHTTP("gobwasws", f, newHandler(f, *deflateFlag))
}

// newHandler returns the peer's handler: the WebSocket paths, hello on
// the others.
func newHandler(f peer.Flags, deflate bool) http.Handler {
	e := &endpoints{deflate: deflate}
	return peer.WSRoutes(http.HandlerFunc(e.echo), http.HandlerFunc(e.broadcast), hello.Handler(nil, f.Delay))
}

type endpoints struct {
	deflate bool
	hub     peer.Hub[frames]
}

// frames is a broadcast message framed once for all receivers: plain, and
// compressed when the peer accepts permessage-deflate.
type frames struct{ plain, packed []byte }

// upgrade answers the upgrade, negotiating permessage-deflate (no context
// takeover either way) when the peer accepts it; it returns nil when the
// upgrade failed (gobwas has answered it).
func (e *endpoints) upgrade(w http.ResponseWriter, r *http.Request) *conn {
	var u ws.HTTPUpgrader
	var ext *wsflate.Extension
	if e.deflate {
		// An Extension keeps one negotiation's state: one per upgrade.
		ext = &wsflate.Extension{Parameters: wsflate.DefaultParameters}
		u.Negotiate = ext.Negotiate
	}
	nc, rw, _, err := u.Upgrade(r, w)
	if err != nil {
		if nc != nil {
			nc.Close()
		}
		return nil
	}
	deflated := false
	if ext != nil {
		_, deflated = ext.Accepted()
	}
	return newConn(nc, rw.Reader, deflated)
}

// echo reads and writes on the handler's goroutine, so echoes leave in
// the order messages came.
func (e *endpoints) echo(w http.ResponseWriter, r *http.Request) {
	c := e.upgrade(w, r)
	if c == nil {
		return
	}
	defer c.Close()
	for {
		op, data, err := c.next()
		if err != nil {
			return
		}
		if _, err := c.Write(frame(op, data, c.deflated)); err != nil {
			return
		}
	}
}

// broadcast joins the connection to the hub before the upgrade, so that a
// client that has its 101 is already a receiver. The handler's goroutine
// reads (and answers pings); a writer goroutine of the connection's own
// drains its outbox. Every frame leaves in one Write, which net.Conn and
// tls.Conn do whole, so the two never interleave within a frame.
func (e *endpoints) broadcast(w http.ResponseWriter, r *http.Request) {
	m := e.hub.Join()
	defer e.hub.Leave(m)
	c := e.upgrade(w, r)
	if c == nil {
		return
	}
	defer c.Close()
	go func() {
		for f := range m.Out {
			b := f.plain
			if c.deflated {
				b = f.packed
			}
			if _, err := c.Write(b); err != nil {
				c.Close() // the reader fails and leaves
				for range m.Out {
				}
				return
			}
		}
	}()
	for {
		op, data, err := c.next()
		if err != nil {
			return
		}
		f := frames{plain: frame(op, data, false)}
		if e.deflate {
			f.packed = frame(op, data, true)
		}
		e.hub.Broadcast(f)
	}
}
