// Command nethttp is the plain net/http peer: it answers "Hello, Go!"
// (text/plain) on every path and method, so gust and its generator can be
// measured against the standard library.
//
// Flags: -addr (default 127.0.0.1:8082), -delay (wait before answering,
// cut short when the client leaves) and -debug-addr (expvar and pprof).
// SIGINT or SIGTERM shut it down within 5 s.
package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

func main() { peer.Main("nethttp", "127.0.0.1:8082", run) }

func run(f peer.Flags) error {
	ln, dbg, err := peer.Listen("nethttp", f)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: hello.Handler(nil, f.Delay)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	err = peer.Wait("nethttp", ln.Addr().String(), errc, func(ctx context.Context) error {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
			return err
		}
		return nil
	}, dbg)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
