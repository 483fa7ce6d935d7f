// Command quicgo is the HTTP/3 peer: quic-go v0.65.0's http3.Server (the
// HTTP/3 engine behind Caddy), answering "Hello, Go!" (text/plain) on
// every path and method, so that gust load --proto h3 is measured
// against the common Go stack. It listens on UDP -addr and needs the TLS
// flags of every peer (-tls-self-signed, or -tls-cert and -tls-key):
// QUIC is always encrypted.
//
// Flags: those of every peer (-addr, default 127.0.0.1:8443; -delay;
// -debug-addr; the TLS flags; -tls-no-resume), and -body N to answer N
// bytes instead of the greeting.
//
// SIGINT or SIGTERM shut it down within 5 s.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

var bodyFlag = flag.Int("body", 0, "answer with this many bytes (text/plain) instead of Hello, Go!")

func main() { peer.Main("quicgo", "127.0.0.1:8443", run) }

func run(f peer.Flags) error {
	if !f.TLS.On() {
		return errors.New("HTTP/3 is always encrypted: give -tls-self-signed, or -tls-cert and -tls-key")
	}
	tc, err := peer.TLSConfig("quicgo", f, "h3")
	if err != nil {
		return err
	}
	pc, err := net.ListenPacket("udp", f.Addr)
	if err != nil {
		return err
	}
	srv := newServer(tc, handler(f, *bodyFlag))
	dbg, err := peer.Debug("quicgo", f)
	if err != nil {
		pc.Close()
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(pc) }()
	err = peer.Wait("quicgo", "https://"+pc.LocalAddr().String()+" (HTTP/3, UDP)", errc, func(ctx context.Context) error {
		return srv.Shutdown(ctx)
	}, dbg)
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, quic.ErrServerClosed) {
		return nil
	}
	return err
}

// newServer returns quic-go's HTTP/3 server with its defaults but the
// idle timeout, which a load run's pauses must not reach.
func newServer(tc *tls.Config, h http.Handler) *http3.Server {
	return &http3.Server{Handler: h, TLSConfig: http3.ConfigureTLSConfig(tc), QUICConfig: &quic.Config{MaxIdleTimeout: 60 * time.Second}}
}

// handler answers the greeting, or n bytes with -body.
func handler(f peer.Flags, n int) http.Handler {
	if n > 0 {
		return hello.TypedHandler([]byte(strings.Repeat("x", n)), "text/plain", f.Delay)
	}
	return hello.Handler(nil, f.Delay)
}
