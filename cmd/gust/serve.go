package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gust-http/gust/internal/hello"
)

// helloBody is what the target server answers when no body size is given.
var helloBody = []byte(hello.Text)

// allowedMethods is the Allow header of the 405 that answers CONNECT:
// gust serve is a target, not a proxy, and answers every other method.
const allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE"

// notAProxy is the body of the 405 that answers CONNECT.
const notAProxy = "gust serve is a target server, not a proxy: CONNECT is not allowed\n"

// shutdownGrace bounds how long a graceful shutdown waits for requests in flight.
const shutdownGrace = 5 * time.Second

// serveConfig holds the knobs of gust serve, filled from its flags.
type serveConfig struct {
	// Addr is the host:port the target server listens on.
	Addr string
	// DebugAddr, if not empty, is a second listener for /debug/vars and /debug/pprof/.
	DebugAddr string
	// Handler says what every request is answered with.
	Handler handlerConfig
	// Engine is "gust" (gust/server's event loops) or "nethttp".
	Engine string
	// Mode is gust/server's dispatch mode: "auto", "pooled" or "inline".
	Mode string
	// API is how the gust engine calls the handler: "native" (server.Ctx)
	// or "nethttp" (the same http.Handler net/http runs, via the adapter).
	API string
	// GRPC also serves gust.echo.Echo (serve_grpc.go) over HTTP/2.
	GRPC bool
	// MaxConns, if positive, closes connections beyond this many at once
	// (gust engine only).
	MaxConns int
	// Loops, if positive, is the gust engine's number of event loops
	// (default GOMAXPROCS).
	Loops int
	// OwnThreads: the loops wait on their own threads (server.Config.LoopsOwnThreads).
	OwnThreads bool
	// Acceptor is how the gust engine spreads connections over its loops:
	// "reuseport" (a listener per loop) or "one" (one acceptor).
	Acceptor string
	// ReadHeaderTimeout, if positive, bounds how long a request head may
	// take to arrive; zero keeps each engine's default (gust/server: 10s,
	// net/http: none).
	ReadHeaderTimeout time.Duration
	// Workers is how many processes serve Addr together (see
	// serve_workers.go); 1 serves from this process.
	Workers int
	// Worker, in a process started by --workers, is its "I/N"; such a
	// process listens with SO_REUSEPORT whatever its engine.
	Worker string
	// TLS says whether and how to serve HTTPS (serve_tls.go).
	TLS serveTLSFlags
	// WSDeflate accepts permessage-deflate on the WebSocket paths
	// (cmd/internal/wspaths; gust engine).
	WSDeflate bool
	// WSPing is the WebSocket paths' ping interval: 0 is gust/server's
	// default (30s), negative turns the server's pings off.
	WSPing time.Duration

	// tlsConf and tlsNote are TLS made ready by runServe: the server's
	// tls.Config (nil: plain HTTP) and the start-up line on its certificate.
	tlsConf *tls.Config
	tlsNote string
	// Root, if set, is a directory whose files are served instead of the
	// hello answer (serve_files.go).
	Root string
	// HTTP2 accepts HTTP/2 with prior knowledge (h2c) beside HTTP/1.1:
	// gust/server's H2C, or net/http's Protocols with unencrypted HTTP/2.
	HTTP2 bool
	// HTTP3 serves HTTP/3 over QUIC on the same port, UDP (gust engine,
	// with TLS).
	HTTP3 bool
	// PidFile, if set, is where the serving process writes its pid (a
	// copy started by SIGUSR2 writes its own; serve_upgrade.go).
	PidFile string
	// DrainTimeout bounds a graceful shutdown: on SIGINT or SIGTERM, and
	// for the old process of an upgrade.
	DrainTimeout time.Duration
	// usr2 receives SIGUSR2 from the start of a single process's run (set
	// by the command; nil in tests, which get one when serving).
	usr2 chan os.Signal
}

// handlerConfig says what the hello handler answers. The zero value answers
// "Hello, Go!" at once.
type handlerConfig struct {
	// Body is written on every response; nil means "Hello, Go!" and an empty,
	// non-nil slice means an empty body.
	Body []byte
	// Delay is how long the handler waits before answering; zero answers at once.
	Delay time.Duration
	// SlowPath, if set, limits Delay to requests for this path: the others
	// are answered at once (a mixed load of fast and waiting requests).
	SlowPath string
	// Compute is how long the handler computes (spins, without waiting)
	// before answering.
	Compute time.Duration
	// ContentType is the answer's Content-Type; "" means text/plain.
	ContentType string
	// Compress compresses the answer as the request's Accept-Encoding
	// allows (serve_compress.go).
	Compress bool
}

// contentType is the answer's Content-Type.
func (h handlerConfig) contentType() string {
	if h.ContentType == "" {
		return "text/plain; charset=utf-8"
	}
	return h.ContentType
}

// delayFor returns how long a request for path waits.
func (h handlerConfig) delayFor(path []byte) time.Duration {
	if h.SlowPath != "" && string(path) != h.SlowPath {
		return 0
	}
	return h.Delay
}

// compute spins for d: a handler that works without waiting.
func compute(d time.Duration) {
	if d <= 0 {
		return
	}
	for start := time.Now(); time.Since(start) < d; {
	}
}

func newServeCmd() *cobra.Command {
	var (
		cfg      serveConfig
		bodySize int
		bodyJSON int
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a small target server that answers Hello, Go! on every path",
		Long: "Run a small target server for trying gust and for tests. It answers every path and\n" +
			"method with text/plain \"Hello, Go!\" (or --body-size bytes), after --delay if given,\n" +
			"on gust/server's event loops (--engine gust, the default) or on net/http.\n" +
			"GET /events?n=N&interval=D streams N Server-Sent Events, one every D (default 10, 100ms);\n" +
			"&stamp=1 adds each event's send time (Unix ns) to its data, and GET /events/truth gives\n" +
			"the stamped streams' first-event and gap times as the server sent them (JSON, microseconds).\n" +
			"--grpc --http2 also serves gRPC's gust.echo.Echo (docs/guides/grpc/echo.proto), with\n" +
			"server reflection (grpc.reflection.v1 and v1alpha).\n" +
			"SIGINT or SIGTERM shut it down gracefully.\n\n" +
			"--workers N (Linux) runs N processes that share the port through SO_REUSEPORT, the\n" +
			"kernel spreading connections over them: this process starts them, forwards SIGINT\n" +
			"and SIGTERM to them, and exits when they have. SIGHUP reads --tls-cert and --tls-key\n" +
			"again (in every worker): new connections get the renewed certificate, open ones keep\n" +
			"theirs; a pair that does not load leaves the old one served. A worker that dies is started again\n" +
			"within a second (said on stderr) while the others serve; one that keeps dying as\n" +
			"soon as it starts stops them all.\n\n" +
			"SIGUSR2 upgrades without downtime (--engine gust, without --workers): this process\n" +
			"starts its executable again with the same flags, hands it the listening sockets, and\n" +
			"once the new process serves (its pid in --pid-file), drains within --drain-timeout and\n" +
			"exits. Listening sockets passed by systemd's socket activation (LISTEN_FDS) are served\n" +
			"instead of --addr's (by a single process: not with --workers).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("body-size") {
				body, err := filledBody(bodySize)
				if err != nil {
					return err
				}
				cfg.Handler.Body = body
			}
			if cmd.Flags().Changed("body-json") {
				if err := cfg.Handler.useJSON(bodyJSON, cmd.Flags().Changed("body-size")); err != nil {
					return err
				}
			}
			if cfg.DrainTimeout <= 0 {
				return fmt.Errorf("serve: --drain-timeout is %s; give a duration above 0, e.g. 30s", cfg.DrainTimeout)
			}
			if cfg.Handler.Delay < 0 {
				return fmt.Errorf("serve: --delay is %s; give a duration of 0 or more, e.g. 2s", cfg.Handler.Delay)
			}
			if err := cfg.check(); err != nil {
				return err
			}
			if err := cfg.checkRoot(); err != nil {
				return err
			}
			cfg.Worker = os.Getenv(workerEnv)
			if cfg.Worker == "" && cfg.Workers == 1 {
				// Caught from now on: a SIGUSR2 that comes as soon as the
				// pid file names this process must not kill it.
				cfg.usr2 = make(chan os.Signal, 1)
				signal.Notify(cfg.usr2, syscall.SIGUSR2)
				defer signal.Stop(cfg.usr2)
			}
			if cfg.Worker == "" && cfg.Workers != 1 {
				if _, ok := os.LookupEnv("LISTEN_FDS"); ok {
					return errors.New("serve: listening sockets passed by socket activation (LISTEN_FDS) are served by one process: drop --workers")
				}
				if err := checkWorkers(cfg); err != nil {
					return err
				}
				args := workerArgs(cmd.Flags())
				if cfg.TLS.SelfSigned {
					dir, err := os.MkdirTemp("", "gust-serve-tls-")
					if err != nil {
						return fmt.Errorf("serve: --tls-self-signed: %w", err)
					}
					defer os.RemoveAll(dir)
					host, _, _ := net.SplitHostPort(cfg.Addr)
					var note string
					if args, note, err = selfSignedForWorkers(args, host, dir); err != nil {
						return err
					}
					fmt.Fprintln(cmd.ErrOrStderr(), note)
				}
				if cfg.TLS.on() && !cfg.TLS.NoResume {
					if err := shareTicketKey(); err != nil {
						return err
					}
				}
				if err := writePidFile(cfg.PidFile); err != nil {
					return err
				}
				defer removePidFile(cfg.PidFile)
				sigs := make(chan os.Signal, 4)
				signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR2)
				defer signal.Stop(sigs)
				return runWorkers(cmd.Context(), cfg, args, sigs, cmd.ErrOrStderr())
			}
			if cfg.Worker == "" && cfg.TLS.on() && !cfg.TLS.NoResume && os.Getenv(ticketKeyEnv) == "" {
				// A copy started by SIGUSR2 inherits the key, so that
				// sessions resume across the upgrade: clients whose idle
				// connections the old process closes come back without a
				// full handshake.
				if err := shareTicketKey(); err != nil {
					return err
				}
			}
			if cfg.Worker == "" && cfg.TLS.SelfSigned && os.Getenv(selfSignedEnv) == "" {
				// The same certificate after an upgrade: the copy inherits it.
				host, _, _ := net.SplitHostPort(cfg.Addr)
				if err := shareSelfSigned(host); err != nil {
					return err
				}
			}
			if cfg.Worker != "" {
				signal.Ignore(syscall.SIGUSR2) // the parent's to answer
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, cfg, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "host:port to listen on")
	f.DurationVar(&cfg.Handler.Delay, "delay", 0, "wait this long before answering each request, e.g. 2s")
	f.IntVar(&bodySize, "body-size", 0, "answer with a body of this many bytes instead of Hello, Go!")
	f.IntVar(&bodyJSON, "body-json", 0, "answer with this many bytes of JSON (application/json, the same document every run) instead of Hello, Go!")
	f.BoolVar(&cfg.Handler.Compress, "compress", false, "compress answers with zstd, br or gzip as Accept-Encoding allows (from 1 KiB; package server/compress)")
	f.StringVar(&cfg.DebugAddr, "debug-addr", "", "if set, host:port for /debug/vars (expvar) and /debug/pprof/")
	f.StringVar(&cfg.Engine, "engine", "gust", "server engine: gust (event loops) or nethttp")
	f.StringVar(&cfg.Handler.SlowPath, "slow-path", "", "only requests for this path wait --delay (e.g. /slow); the others are answered at once")
	f.DurationVar(&cfg.Handler.Compute, "compute", 0, "compute (spin, without waiting) this long before answering each request, e.g. 200us")
	f.StringVar(&cfg.Mode, "mode", "auto", "gust engine: auto (handlers start on the loops and move to a goroutine when they wait), pooled (on worker goroutines) or inline (on the loops; never with --delay)")
	f.IntVar(&cfg.Loops, "loops", 0, "gust engine: event loops (0: one per GOMAXPROCS)")
	f.BoolVar(&cfg.OwnThreads, "own-threads", false, "gust engine: each loop waits in epoll_wait on its own thread, unseen by the Go scheduler, rather than parking in its poller (less CPU per wake-up; GOMAXPROCS raised to loops + 1)")
	f.StringVar(&cfg.Acceptor, "acceptor", "reuseport", "gust engine: reuseport (a listener per loop) or one (one acceptor hands connections to the loops)")
	f.IntVar(&cfg.MaxConns, "max-conns", 0, "gust engine: close connections beyond this many at once (0: no limit)")
	f.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", 0, "close a connection whose request head takes longer than this (0: the engine's default)")
	f.StringVar(&cfg.API, "api", "native", "gust engine: native (server.Ctx) or nethttp (the net/http handler through the adapter)")
	f.BoolVar(&cfg.GRPC, "grpc", false, "also serve the gRPC service gust.echo.Echo (docs/guides/grpc/echo.proto: unary, server, client and bidirectional streams); needs --http2; with the gust engine every request then goes through the net/http adapter")
	f.BoolVar(&cfg.HTTP2, "http2", false, "also serve HTTP/2 beside HTTP/1.1: with prior knowledge (h2c) on plain TCP, by ALPN (h2) with --tls-*")
	f.BoolVar(&cfg.HTTP3, "http3", false, "gust engine: also serve HTTP/3 (QUIC) on the same port over UDP, advertised to HTTP/1.1 and HTTP/2 clients with Alt-Svc; needs --tls-self-signed or --tls-cert")
	f.IntVar(&cfg.Workers, "workers", 1, "processes sharing --addr's port with SO_REUSEPORT (Linux; needs a fixed port)")
	f.DurationVar(&cfg.WSPing, "ws-ping", 0, "gust engine: ping a WebSocket silent this long, and close it if it stays silent as long again (0: 30s; -1s: never)")
	f.BoolVar(&cfg.WSDeflate, "ws-deflate", false, "gust engine: accept permessage-deflate on the WebSocket paths (/ws echoes, /ws/broadcast sends to every connection on it)")
	f.StringVar(&cfg.Root, "root", "", "serve the files under this directory (GET and HEAD, ranges, validators, precompressed .br/.zst/.gz siblings) instead of Hello, Go!")
	f.StringVar(&cfg.PidFile, "pid-file", "", "write the serving process's pid to this file (after SIGUSR2, the new process's)")
	f.DurationVar(&cfg.DrainTimeout, "drain-timeout", shutdownGrace, "how long a graceful shutdown (SIGINT, SIGTERM, or the old process of a SIGUSR2 upgrade) waits for requests in flight")
	addTLSFlags(f, &cfg.TLS)
	return cmd
}

// filledBody returns a response body of n bytes, built once at start-up so
// that answering costs no allocation.
func filledBody(n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("serve: --body-size is %d; give a size of 0 or more bytes", n)
	}
	// Repeat the greeting so a body read by a person still looks like ours.
	return bytes.Repeat(helloBody, n/len(helloBody)+1)[:n], nil
}

// newHelloHandler returns the handler gust serve answers with, whatever the
// engine that drives it: hello.Handler, but CONNECT gets a 405 (refuseConnect).
func newHelloHandler(cfg handlerConfig) http.Handler {
	h := hello.TypedHandler(cfg.Body, cfg.contentType(), cfg.Delay)
	fast := h
	if cfg.SlowPath != "" {
		fast = hello.TypedHandler(cfg.Body, cfg.contentType(), 0)
	}
	return compressHTTP(cfg, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			refuseConnect(w)
			return
		}
		compute(cfg.Compute)
		if cfg.SlowPath != "" && r.URL.Path != cfg.SlowPath {
			fast.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuseConnect answers a CONNECT request: 405 with an Allow header
// listing the methods gust serve answers.
func refuseConnect(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Allow", allowedMethods)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(notAProxy)))
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = io.WriteString(w, notAProxy)
}

// http2Note says which HTTP versions beyond HTTP/1.1 are served, for
// start-up lines: ", h2c", ", h2 by ALPN, h3 over UDP", or "".
func http2Note(cfg serveConfig) string {
	h3 := ""
	if cfg.HTTP3 {
		h3 = ", h3 over UDP"
	}
	switch {
	case !cfg.HTTP2:
		return h3
	case cfg.tlsConf != nil:
		return ", h2 by ALPN" + h3
	}
	return ", h2c" + h3
}

// workerNote names the worker in start-up lines: "; worker 1/4", or ""
// outside --workers.
func workerNote(cfg serveConfig) string {
	if cfg.Worker == "" {
		return ""
	}
	return "; worker " + cfg.Worker
}

// runServe listens on cfg.Addr (and cfg.DebugAddr, if set), serves until ctx
// is done, then shuts down gracefully within shutdownGrace. It writes its
// start-up lines to log.
func runServe(ctx context.Context, cfg serveConfig, log io.Writer) error {
	host, _, _ := net.SplitHostPort(cfg.Addr)
	var err error
	var certs *certReloader
	if cfg.tlsConf, cfg.tlsNote, certs, err = cfg.TLS.config(host); err != nil {
		return err
	}
	defer watchReload(certs, log)()
	if cfg.Engine == "" || cfg.Engine == "nethttp" {
		return runNetHTTP(ctx, cfg, log)
	}
	return runGust(ctx, cfg, log)
}

// runNetHTTP is runServe on net/http.
func runNetHTTP(ctx context.Context, cfg serveConfig, log io.Writer) error {
	var lc net.ListenConfig
	if cfg.Worker != "" {
		lc.Control = setReusePort
	}
	ln, err := netHTTPListener(cfg, lc)
	if err != nil {
		return err
	}
	if cfg.tlsConf != nil {
		tc := cfg.tlsConf.Clone()
		tc.NextProtos = []string{"http/1.1"}
		if cfg.HTTP2 {
			tc.NextProtos = []string{"h2", "http/1.1"}
		}
		ln = tls.NewListener(ln, tc)
	}
	// Timeouts stay zero on purpose: a target under load should not cut the
	// connections the generator is measuring.
	handler := eventsNetHTTP(newHelloHandler(cfg.Handler))
	if cfg.Root != "" {
		handler = netHTTPFiles(cfg.Root)
	}
	if cfg.GRPC {
		handler = grpcRoutesNetHTTP(handler)
	}
	servers := []*http.Server{{Handler: handler, ReadHeaderTimeout: cfg.ReadHeaderTimeout}}
	if cfg.HTTP2 {
		servers[0].Protocols = new(http.Protocols)
		servers[0].Protocols.SetHTTP1(true)
		servers[0].Protocols.SetUnencryptedHTTP2(true)
		servers[0].Protocols.SetHTTP2(true)
	}
	listeners := []net.Listener{ln}
	if cfg.DebugAddr != "" {
		dln, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("serve: listen on --debug-addr %q: %w", cfg.DebugAddr, err)
		}
		servers = append(servers, &http.Server{Handler: hello.DebugHandler()})
		listeners = append(listeners, dln)
	}

	fmt.Fprintf(log, "gust serve: listening on %s://%s (engine nethttp%s%s)\n", cfg.TLS.scheme(), ln.Addr(), http2Note(cfg), workerNote(cfg))
	if cfg.tlsNote != "" {
		fmt.Fprintln(log, cfg.tlsNote)
	}
	if len(listeners) > 1 {
		fmt.Fprintf(log, "gust serve: debug endpoints on http://%s/debug/\n", listeners[1].Addr())
	}

	if err := writePidFile(cfg.PidFile); err != nil {
		for _, l := range listeners {
			l.Close()
		}
		return err
	}
	defer removePidFile(cfg.PidFile)
	usr2 := upgradeSignals(cfg)
	defer signal.Stop(usr2)
	go func() {
		for range usr2 {
			fmt.Fprintln(log, "gust serve: SIGUSR2: upgrades need --engine gust; still serving")
		}
	}()
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	sayReady()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		serveErr = fmt.Errorf("serve: %w", serveErr)
	}

	sctx, cancel := context.WithTimeout(context.Background(), cfg.drainTimeout())
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
			if serveErr == nil {
				serveErr = fmt.Errorf("serve: shutdown: requests still running after %s were cut off: %w", cfg.drainTimeout(), err)
			}
		}
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		return nil
	}
	return serveErr
}
