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
// clients speak). SIGINT or SIGTERM stop it gracefully within 5 s.
package main

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/interop"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"github.com/gust-http/gust/peers/internal/peer"
)

func main() { peer.Main("grpcgo", "127.0.0.1:8087", run) }

func run(f peer.Flags) error {
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

// newServer returns a grpc-go server with the interop TestService.
func newServer(opts ...grpc.ServerOption) *grpc.Server {
	srv := grpc.NewServer(opts...)
	testgrpc.RegisterTestServiceServer(srv, interop.NewTestServer())
	return srv
}
