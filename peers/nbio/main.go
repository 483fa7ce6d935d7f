// Command nbio is the nbio peer: nbio's nbhttp engine (epoll event loops
// for Go) serving a net/http Handler that answers "Hello, Go!" (text/plain)
// on every path and method, with its default configuration.
//
// Flags: -addr (default 127.0.0.1:8083), -delay (wait before answering)
// and -debug-addr (expvar and pprof). SIGINT or SIGTERM shut it down.
//
// nbio v1.6.12 is pinned in go.mod: the module proxy available to this
// project refuses v1.6.13 and later.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/peers/internal/debugsrv"
)

var (
	body          = []byte("Hello, Go!")
	contentLength = strconv.Itoa(len(body))
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8083", "host:port to listen on")
	delay := flag.Duration("delay", 0, "wait this long before answering each request, e.g. 2s")
	debugAddr := flag.String("debug-addr", "", "if set, host:port for /debug/vars (expvar) and /debug/pprof/")
	flag.Parse()
	if err := run(*addr, *delay, *debugAddr); err != nil {
		fmt.Fprintln(os.Stderr, "peers/nbio:", err)
		os.Exit(1)
	}
}

func run(addr string, delay time.Duration, debugAddr string) error {
	if delay < 0 {
		return fmt.Errorf("-delay is %s; give a duration of 0 or more", delay)
	}
	var dbg *debugsrv.Server
	if debugAddr != "" {
		var err error
		if dbg, err = debugsrv.Start(debugAddr); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "peers/nbio: debug endpoints on http://%s/debug/\n", dbg.Addr())
	}
	engine := nbhttp.NewEngine(nbhttp.Config{
		Network: "tcp",
		Addrs:   []string{addr},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if delay > 0 {
				time.Sleep(delay)
			}
			h := w.Header()
			h["Content-Type"] = []string{"text/plain; charset=utf-8"}
			h["Content-Length"] = []string{contentLength}
			w.Write(body)
		}),
	})
	if err := engine.Start(); err != nil {
		return fmt.Errorf("listen on -addr %q: %w", addr, err)
	}
	fmt.Fprintf(os.Stderr, "peers/nbio: listening on http://%s\n", addr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := engine.Shutdown(sctx)
	if dbg != nil {
		dbg.Shutdown(sctx)
	}
	return err
}
