// Command nbio is the nbio peer: nbio's nbhttp engine (epoll event loops
// for Go) serving hello.Handler, the net/http Handler that answers
// "Hello, Go!" (text/plain) on every path and method, with its default
// configuration.
//
// Flags: -addr (default 127.0.0.1:8083), -delay (wait before answering;
// nbio's request context ends only when the engine stops, so only shutdown
// cuts it short), -debug-addr (expvar and pprof), and -tls-cert FILE
// -tls-key FILE or -tls-self-signed to serve HTTP/1.1 over TLS with nbio's
// own TLS (see configure). SIGINT or SIGTERM shut it down within 5 s.
//
// nbio v1.6.12 is pinned in go.mod: the module proxy available to this
// project refuses v1.6.13 and later.
package main

import (
	"context"
	"fmt"

	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

func main() { peer.Main("nbio", "127.0.0.1:8083", run) }

func run(f peer.Flags) error {
	dbg, err := peer.Debug("nbio", f)
	if err != nil {
		return err
	}
	conf := nbhttp.Config{Network: "tcp", Handler: hello.Handler(nil, f.Delay)}
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
