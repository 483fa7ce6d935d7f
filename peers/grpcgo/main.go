// Command grpcgo is grpc-go's own server, the peer of gust's gRPC cells:
// it serves grpc-go's interoperability TestService (unary, server
// streaming, client streaming and full-duplex calls, the messages of
// google.golang.org/grpc/interop/grpc_testing) on its own HTTP/2
// transport, a goroutine per connection and per stream. The same service
// runs on gust/server through the net/http adapter in this folder's
// tests.
//
// Flags: those of every peer (-addr, default 127.0.0.1:8087; -debug-addr;
// -tls-cert FILE -tls-key FILE or -tls-self-signed for h2 by ALPN;
// without them it serves h2c with prior knowledge, as gRPC's plaintext
// clients speak), and -engine: grpc (default, grpc-go's own transport) or
// gust (the same grpc.Server on gust/server's loops through the net/http
// adapter, -loops of them), so that one binary measures both. Server
// reflection is on, so ghz and grpcurl need no .proto file. SIGINT or
// SIGTERM stop it gracefully within 5 s.
package main

import (
	"context"
	"flag"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/interop"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"

	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/server"
)

var (
	engineFlag = flag.String("engine", "grpc", "grpc (grpc-go's own HTTP/2 transport) or gust (gust/server's loops, through the net/http adapter)")
	loopsFlag  = flag.Int("loops", 0, "with -engine gust: event loops (0: one per GOMAXPROCS)")
)

func main() { peer.Main("grpcgo", "127.0.0.1:8087", run) }

func run(f peer.Flags) error {
	switch *engineFlag {
	case "grpc":
	case "gust":
		return runGust(f)
	default:
		return fmt.Errorf("-engine %q: give grpc or gust", *engineFlag)
	}
	var opts []grpc.ServerOption
	if f.TLS.On() {
		conf, err := peer.TLSConfig("grpcgo", f, "h2")
		if err != nil {
			return err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(conf)))
	}
	srv := newServer(opts...)
	ln, dbg, err := peer.Listen("grpcgo", f)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	return peer.Wait("grpcgo", f.URL(ln.Addr().String()), errc, func(ctx context.Context) error {
		done := make(chan struct{})
		go func() { srv.GracefulStop(); close(done) }()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			srv.Stop()
			return ctx.Err()
		}
	}, dbg)
}

// runGust serves the same grpc.Server on gust/server: h2c with prior
// knowledge, or h2 by ALPN with the TLS flags.
func runGust(f peer.Flags) error {
	conf, err := peer.TLSConfig("grpcgo", f, "h2")
	if err != nil {
		return err
	}
	srv := &server.Server{Handler: server.HTTPHandler(newServer()), Config: server.Config{
		Loops: *loopsFlag, H2C: conf == nil, TLS: conf, HTTP2: server.HTTP2Config{OverTLS: conf != nil},
	}}
	if err := srv.Listen(f.Addr); err != nil {
		return fmt.Errorf("listen on -addr %q: %w", f.Addr, err)
	}
	dbg, err := peer.Debug("grpcgo", f)
	if err != nil {
		srv.Close()
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	return peer.Wait("grpcgo", f.URL(srv.Addr().String()), errc, srv.Shutdown, dbg)
}

// newServer returns a grpc-go server with the interop TestService and
// server reflection.
func newServer(opts ...grpc.ServerOption) *grpc.Server {
	srv := grpc.NewServer(opts...)
	testgrpc.RegisterTestServiceServer(srv, interop.NewTestServer())
	reflection.Register(srv)
	return srv
}
