// Package peer is what the peer servers share around the server each one
// measures: their flags, their start-up lines, the debug listener and the
// wait for SIGINT or SIGTERM. What they answer is the main module's
// internal/hello, as gust serve's is.
package peer

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
)

// ShutdownGrace bounds how long a peer waits for requests in flight when
// it stops.
const ShutdownGrace = 5 * time.Second

// Flags are the flags every peer takes.
type Flags struct {
	Addr      string        // -addr: host:port to listen on
	Delay     time.Duration // -delay: how long to wait before answering
	DebugAddr string        // -debug-addr: host:port of the debug listener, if any
	TLS       TLSFlags      // -tls-cert, -tls-key, -tls-self-signed, -tls-no-resume
	ReusePort bool          // -reuseport: share Addr with other processes (SO_REUSEPORT)
	// IdleTimeout (-idle-timeout) closes a keep-alive connection that
	// waits this long for its next request; 0 keeps the server's own
	// default (none for net/http and fasthttp, 120 s for nbio).
	IdleTimeout time.Duration
}

// URL is the address the peer serves at addr: https:// when it serves TLS.
func (f Flags) URL(addr string) string {
	if f.TLS.On() {
		return "https://" + addr
	}
	return "http://" + addr
}

// Main parses the peer's flags, with defaultAddr as -addr's default, and
// calls run with them; when run fails, it prints "peers/NAME: error" and
// exits with status 1. A negative -delay is refused before run.
func Main(name, defaultAddr string, run func(Flags) error) {
	var f Flags
	flag.StringVar(&f.Addr, "addr", defaultAddr, "host:port to listen on")
	flag.DurationVar(&f.Delay, "delay", 0, "wait this long before answering each request, e.g. 2s")
	flag.StringVar(&f.DebugAddr, "debug-addr", "", "if set, host:port for /debug/vars (expvar) and /debug/pprof/")
	flag.StringVar(&f.TLS.CertFile, "tls-cert", "", "serve TLS with this PEM certificate (chain); needs -tls-key")
	flag.StringVar(&f.TLS.KeyFile, "tls-key", "", "the PEM private key of -tls-cert")
	flag.BoolVar(&f.TLS.SelfSigned, "tls-self-signed", false, "serve TLS with an ECDSA P-256 certificate made at start")
	flag.BoolVar(&f.TLS.NoResume, "tls-no-resume", false, "refuse TLS session resumption: every new connection is a full handshake")
	flag.BoolVar(&f.ReusePort, "reuseport", false, "listen with SO_REUSEPORT, so that several processes can share -addr")
	flag.DurationVar(&f.IdleTimeout, "idle-timeout", 0, "close a keep-alive connection idle this long; 0 keeps the server's default")
	flag.Parse()
	err := fmt.Errorf("-delay is %s; give a duration of 0 or more", f.Delay)
	if f.Delay >= 0 {
		err = fmt.Errorf("-idle-timeout is %s; give a duration of 0 or more", f.IdleTimeout)
	}
	if f.Delay >= 0 && f.IdleTimeout >= 0 {
		err = f.TLS.check()
	}
	if err == nil {
		err = run(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers/"+name+":", err)
		os.Exit(1)
	}
}

// Debug starts the debug listener when f.DebugAddr is set, saying where on
// stderr; it returns nil when there is none.
func Debug(name string, f Flags) (*DebugServer, error) {
	if f.DebugAddr == "" {
		return nil, nil
	}
	dbg, err := StartDebug(f.DebugAddr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "peers/%s: debug endpoints on http://%s/debug/\n", name, dbg.Addr())
	return dbg, nil
}

// Listen listens on f.Addr (with SO_REUSEPORT if f.ReusePort: ListenFunc)
// and starts the debug listener (Debug).
func Listen(name string, f Flags) (net.Listener, *DebugServer, error) {
	ln, err := ListenFunc(f.ReusePort)("tcp", f.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on -addr %q: %w", f.Addr, err)
	}
	dbg, err := Debug(name, f)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	return ln, dbg, nil
}

// Wait says the peer is listening at url, then waits for SIGINT, SIGTERM
// or an error from errc (nil: signals only); then it stops the server with
// shutdown and the debug listener, within ShutdownGrace. It returns the
// serving error, if any, joined with those of the stops.
func Wait(name, url string, errc <-chan error, shutdown func(context.Context) error, dbg *DebugServer) error {
	fmt.Fprintf(os.Stderr, "peers/%s: listening on %s\n", name, url)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := shutdown(sctx); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("shutdown: %w", err))
	}
	return errors.Join(serveErr, dbg.Shutdown(sctx))
}
