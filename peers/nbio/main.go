// Command nbio is the nbio peer: nbio's nbhttp engine (epoll event loops
// for Go) serving hello.Handler, the net/http Handler that answers
// "Hello, Go!" (text/plain) on every path and method, with its default
// configuration.
//
// Flags: -addr (default 127.0.0.1:8083), -delay (wait before answering;
// nbio's request context ends only when the engine stops, so only shutdown
// cuts it short), -debug-addr (expvar and pprof), and -tls-cert FILE
// -tls-key FILE or -tls-self-signed to serve HTTP/1.1 over TLS with nbio's
// own TLS (see configure); -ws-deflate accepts permessage-deflate on the
// WebSocket paths. SIGINT or SIGTERM shut it down within 5 s.
//
// It also answers gust serve's WebSocket paths with nbio's websocket, on
// the same event loops (newHandler): /ws echoes every message back as it
// came (text as text, binary as binary), in order; /ws/broadcast sends
// every message to all connections on that path, the sender included.
//
// nbio v1.6.12 is pinned in go.mod: the module proxy available to this
// project refuses v1.6.13 and later.
package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/peers/internal/peer"
)

var deflateFlag = flag.Bool("ws-deflate", false, "accept permessage-deflate on the WebSocket paths (without context takeover)")

func main() { peer.Main("nbio", "127.0.0.1:8083", run) }

func run(f peer.Flags) error {
	dbg, err := peer.Debug("nbio", f)
	if err != nil {
		return err
	}
	conf := newConfig(f, *deflateFlag)
	if err := configure(&conf, f); err != nil {
		dbg.Shutdown(context.Background())
		return err
	}
	engine := nbhttp.NewEngine(conf)
	if err := engine.Start(); err != nil {
		return fmt.Errorf("listen on -addr %q: %w", f.Addr, err)
	}
	return peer.Wait("nbio", f.URL(f.Addr), nil, engine.Shutdown, dbg)
}

// newConfig is the engine's configuration without its addresses: the
// handler, the listen function (SO_REUSEPORT with -reuseport), and
// WebSocket payloads given back to nbio's allocator once
// OnMessage returns (the handlers copy what they keep by writing it).
func newConfig(f peer.Flags, deflate bool) nbhttp.Config {
	return nbhttp.Config{Network: "tcp", Handler: newHandler(f, deflate), ReleaseWebsocketPayload: true,
		Listen: peer.ListenFunc(f.ReusePort), KeepaliveTime: f.IdleTimeout}
}
