// Command fasthttp is the fasthttp peer: it answers "Hello, Go!"
// (text/plain) on every path and method, so gust can be measured against
// fasthttp's worker-pool design.
//
// Flags: -addr (default 127.0.0.1:8081), -delay (wait before answering) and
// -debug-addr (a net/http listener with expvar and pprof). SIGINT or SIGTERM
// shut it down within 5 s.
//
// fasthttp does not tell a handler when its client leaves (RequestCtx.Done
// closes only on server shutdown), so -delay is cut short by shutdown alone.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/gust-http/gust/peers/internal/debugsrv"
)

const shutdownGrace = 5 * time.Second

var body = []byte("Hello, Go!")

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "host:port to listen on")
	delay := flag.Duration("delay", 0, "wait this long before answering each request, e.g. 2s")
	debugAddr := flag.String("debug-addr", "", "if set, host:port for /debug/vars (expvar) and /debug/pprof/")
	flag.Parse()
	if err := run(*addr, *delay, *debugAddr); err != nil {
		fmt.Fprintln(os.Stderr, "peers/fasthttp:", err)
		os.Exit(1)
	}
}

func run(addr string, delay time.Duration, debugAddr string) error {
	if delay < 0 {
		return fmt.Errorf("-delay is %s; give a duration of 0 or more", delay)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on -addr %q: %w", addr, err)
	}
	var dbg *debugsrv.Server
	if debugAddr != "" {
		if dbg, err = debugsrv.Start(debugAddr); err != nil {
			ln.Close()
			return err
		}
		fmt.Fprintf(os.Stderr, "peers/fasthttp: debug endpoints on http://%s/debug/\n", dbg.Addr())
	}

	srv := &fasthttp.Server{Handler: hello(delay), Name: "fasthttp"}
	fmt.Fprintf(os.Stderr, "peers/fasthttp: listening on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// fasthttp leaves idle keep-alive connections open on shutdown, so with
	// clients still connected this waits out the grace period.
	if err := srv.ShutdownWithContext(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		serveErr = errors.Join(serveErr, fmt.Errorf("shutdown: %w", err))
	}
	if dbg != nil {
		serveErr = errors.Join(serveErr, dbg.Shutdown(sctx))
	}
	return serveErr
}

// hello answers every request with body after delay.
func hello(delay time.Duration) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBody(body)
	}
}
