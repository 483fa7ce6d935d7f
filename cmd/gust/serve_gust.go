package main

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gust-http/gust/cmd/internal/wspaths"
	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/server"
)

// newNativeHello returns the hello handler on gust/server's native API:
// the same answer as newHelloHandler, CONNECT's 405 included, without
// allocating.
func newNativeHello(cfg handlerConfig) server.Handler {
	body := cfg.Body
	if body == nil {
		body = helloBody
	}
	ctype := cfg.contentType()
	return compressNative(cfg, func(c *server.Ctx) {
		if string(c.Method()) == http.MethodConnect {
			c.SetStatus(http.StatusMethodNotAllowed)
			c.SetHeader("Allow", allowedMethods)
			c.SetContentType("text/plain; charset=utf-8")
			c.WriteString(notAProxy)
			return
		}
		compute(cfg.Compute)
		if d := cfg.delayFor(c.Path()); d > 0 {
			time.Sleep(d)
		}
		c.SetContentType(ctype)
		c.Write(body)
	})
}

// currentGust is the gust server whose Stats the expvar "gust" shows.
var currentGust atomic.Pointer[server.Server]

// publishServerStats shows srv's Stats as the expvar "gust"; the variable
// is registered once per process, as expvar allows.
func publishServerStats(srv *server.Server) {
	currentGust.Store(srv)
	publishGustVar()
}

var publishGustVar = sync.OnceFunc(func() {
	expvar.Publish("gust", expvar.Func(func() any {
		if s := currentGust.Load(); s != nil {
			return s.Stats()
		}
		return nil
	}))
})

// runGust is runServe on gust/server.
func runGust(ctx context.Context, cfg serveConfig, log io.Writer) error {
	srv := &server.Server{Config: server.Config{
		// Like the net/http target, keep connections a load test measures.
		IdleTimeout:       time.Hour,
		MaxConns:          cfg.MaxConns,
		Loops:             cfg.Loops,
		LoopsOwnThreads:   cfg.OwnThreads,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		// A --workers process shares the port with its siblings.
		SharePort: cfg.Worker != "",
		TLS:       cfg.tlsConf,
		H2C:       cfg.HTTP2,
		HTTP3:     cfg.HTTP3,
		// Workers and the processes of upgrades share it, as they share
		// the session ticket key: one's stateless resets are good for
		// another's QUIC clients.
		HTTP3Secret: sharedSecret(),
		// The WebSocket paths accept RFC 8441's extended CONNECT too.
		HTTP2: server.HTTP2Config{OverTLS: cfg.HTTP2, ExtendedConnect: true},
	}}
	if cfg.Acceptor == "one" {
		srv.Config.Acceptor = server.AcceptOne
	}
	switch cfg.Mode {
	case "inline":
		srv.Config.Mode = server.Inline
	case "pooled":
		srv.Config.Mode = server.Pooled
	}
	ws := wspaths.New(cfg.WSDeflate, cfg.WSPing)
	switch {
	case cfg.Root != "" && cfg.API == "nethttp":
		srv.Handler = server.HTTPHandler(ws.NetHTTP(netHTTPFiles(cfg.Root)))
	case cfg.Root != "":
		files, closeFiles, err := nativeFiles(cfg.Root)
		if err != nil {
			return err
		}
		defer closeFiles()
		srv.Handler = ws.Native(files)
	case cfg.API == "nethttp":
		srv.Handler = server.HTTPHandler(ws.NetHTTP(eventsNetHTTP(newHelloHandler(cfg.Handler))))
	default:
		srv.Handler = ws.Native(eventsNative(newNativeHello(cfg.Handler), cfg.Mode))
	}
	if cfg.GRPC {
		// gRPC's streams and trailers need the net/http adapter as the
		// server's handler (it drives HTTP/2 streams itself), so the rest
		// is served through it too.
		var rest http.Handler = eventsNetHTTP(newHelloHandler(cfg.Handler))
		if cfg.Root != "" {
			rest = netHTTPFiles(cfg.Root)
		}
		srv.Handler = server.HTTPHandler(grpcRoutesNetHTTP(ws.NetHTTP(rest)))
	}
	if err := listenGust(srv, cfg); err != nil {
		return err
	}
	var debug *http.Server
	var debugAddr net.Addr
	if cfg.DebugAddr != "" {
		dln, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			srv.Close()
			return fmt.Errorf("serve: listen on --debug-addr %q: %w", cfg.DebugAddr, err)
		}
		publishServerStats(srv)
		debug = &http.Server{Handler: hello.DebugHandler()}
		debugAddr = dln.Addr()
		go debug.Serve(dln)
		defer debug.Close()
	}
	api := cfg.API
	if cfg.GRPC {
		api = "nethttp for gRPC"
	}
	fmt.Fprintf(log, "gust serve: listening on %s://%s (engine gust, %s, %s%s%s)\n", cfg.TLS.scheme(), srv.Addr(), cfg.Mode, api, http2Note(cfg), workerNote(cfg))
	if cfg.tlsNote != "" {
		fmt.Fprintln(log, cfg.tlsNote)
	}
	if debug != nil {
		fmt.Fprintf(log, "gust serve: debug endpoints on http://%s/debug/\n", debugAddr)
	}

	if err := writePidFile(cfg.PidFile); err != nil {
		srv.Close()
		return err
	}
	defer removePidFile(cfg.PidFile)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	sayReady()
	var upgraded <-chan int
	if cfg.Worker == "" {
		var stop func()
		upgraded, stop = watchUpgrade(srv, cfg, log)
		defer stop()
	}
	select {
	case <-ctx.Done():
	case <-upgraded:
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.drainTimeout())
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: requests still running after %s were cut off: %w", cfg.drainTimeout(), err)
	}
	if err := <-errc; !errors.Is(err, server.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
