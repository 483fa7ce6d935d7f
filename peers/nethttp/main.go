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
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gust-http/gust/peers/internal/debugsrv"
)

const shutdownGrace = 5 * time.Second

var (
	body          = []byte("Hello, Go!")
	contentLength = strconv.Itoa(len(body))
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8082", "host:port to listen on")
	delay := flag.Duration("delay", 0, "wait this long before answering each request, e.g. 2s")
	debugAddr := flag.String("debug-addr", "", "if set, host:port for /debug/vars (expvar) and /debug/pprof/")
	flag.Parse()
	if err := run(*addr, *delay, *debugAddr); err != nil {
		fmt.Fprintln(os.Stderr, "peers/nethttp:", err)
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
		fmt.Fprintf(os.Stderr, "peers/nethttp: debug endpoints on http://%s/debug/\n", dbg.Addr())
	}

	srv := &http.Server{Handler: hello(delay)}
	fmt.Fprintf(os.Stderr, "peers/nethttp: listening on http://%s\n", ln.Addr())
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
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		serveErr = errors.Join(serveErr, fmt.Errorf("shutdown: %w", err))
	}
	if dbg != nil {
		serveErr = errors.Join(serveErr, dbg.Shutdown(sctx))
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		return nil
	}
	return serveErr
}

// hello answers every request with body after delay, or not at all if the
// client leaves first.
func hello(delay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		h := w.Header()
		h["Content-Type"] = []string{"text/plain; charset=utf-8"}
		h["Content-Length"] = []string{contentLength}
		_, _ = w.Write(body)
	})
}
