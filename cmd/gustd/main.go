package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gust-http/gust/cmd/internal/wspaths"
	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gustd:", err)
		os.Exit(2)
	}
}

// run parses args, serves until a signal, and returns what stopped it
// other than the signal.
func run(args []string) error {
	fl := flag.NewFlagSet("gustd", flag.ContinueOnError)
	addr := fl.String("addr", "127.0.0.1:8080", "host:port to listen on")
	share := fl.Bool("reuseport", false, "share the port with other processes (SO_REUSEPORT), the kernel spreading connections among them")
	loops := fl.Int("loops", 0, "event loops (0: GOMAXPROCS)")
	mode := fl.String("mode", "auto", "where handlers run: auto, pooled or inline")
	readHeader := fl.Duration("read-header-timeout", 0, "close a connection whose request head takes longer than this (0: 10s)")
	idle := fl.Duration("idle-timeout", 0, "close a keep-alive connection idle this long (0: 120s)")
	ping := fl.Duration("ws-ping", 0, "ping a WebSocket silent this long, and close it if it stays silent as long again (0: 30s; -1s: never)")
	h3 := fl.Bool("http3", false, "serve HTTPS with a self-signed certificate made at start, and HTTP/3 (QUIC) on the same port over UDP")
	own := fl.Bool("own-threads", false, "the loops wait in epoll_wait on their own threads rather than parking in the Go runtime's poller (GOMAXPROCS raised to loops + 1)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errors.New("bad flags (see -h)")
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: everything is a flag (see -h)", fl.Arg(0))
	}
	m, err := parseMode(*mode)
	if err != nil {
		return err
	}
	if *loops < 0 || *readHeader < 0 || *idle < 0 {
		return errors.New("-loops, -read-header-timeout and -idle-timeout must not be negative")
	}
	hello := server.HandlerFunc(func(c *server.Ctx) {
		c.SetContentType("text/plain; charset=utf-8")
		c.WriteString("Hello, Go!")
	})
	srv := &server.Server{
		Handler: wspaths.New(false, *ping).Native(hello),
		Config: server.Config{Loops: *loops, Mode: m, SharePort: *share,
			ReadHeaderTimeout: *readHeader, IdleTimeout: *idle, LoopsOwnThreads: *own},
	}
	if *h3 {
		cert, _, err := transport.SelfSigned([]string{"localhost", "127.0.0.1", "::1"}, 0)
		if err != nil {
			return fmt.Errorf("-http3: %w", err)
		}
		srv.Config.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
		srv.Config.HTTP3 = true
	}
	if err := srv.Listen(*addr); err != nil {
		return fmt.Errorf("listen on -addr %q: %w", *addr, err)
	}
	if *h3 {
		fmt.Fprintf(os.Stderr, "gustd: listening on %s (TCP: HTTPS; UDP: HTTP/3)\n", srv.Addr())
	} else {
		fmt.Fprintf(os.Stderr, "gustd: listening on %s\n", srv.Addr())
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	select {
	case err := <-errc:
		return err
	case <-sig:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	if err := <-errc; !errors.Is(err, server.ErrServerClosed) {
		return err
	}
	return nil
}

// parseMode returns the Mode named s.
func parseMode(s string) (server.Mode, error) {
	switch s {
	case "auto":
		return server.Auto, nil
	case "pooled":
		return server.Pooled, nil
	case "inline":
		return server.Inline, nil
	}
	return 0, fmt.Errorf("-mode must be auto, pooled or inline, got %q", s)
}
