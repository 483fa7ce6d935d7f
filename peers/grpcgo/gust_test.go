package main

import (
	"context"
	"crypto/tls"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/interop"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/server"
)

// The same grpc-go service, on grpc-go's own transport and on gust/server
// through the net/http adapter (h2c with prior knowledge, and h2 over TLS),
// passes grpc-go's interoperability cases from grpc-go's client: unary,
// server streaming, client streaming, full duplex, empty streams, status
// codes and messages, metadata both ways, cancellations and deadlines.
// (An interop case that fails ends the test binary with its reason.)
// DoCancelAfterBegin is left out: it cancels the call's context and then
// half-closes, and a server that answers the half-close before grpc-go's
// client has seen its own cancellation (on loopback, either server can)
// makes the client report OK instead of CANCELLED: a race in the client,
// not a verdict on the server.

// interopCases runs grpc-go's interop client cases against c.
func interopCases(t *testing.T, c testgrpc.TestServiceClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name string
		do   func(context.Context, testgrpc.TestServiceClient, ...grpc.CallOption)
	}{
		{"empty unary", interop.DoEmptyUnaryCall},
		{"large unary", interop.DoLargeUnaryCall},
		{"client streaming", interop.DoClientStreaming},
		{"server streaming", interop.DoServerStreaming},
		{"ping pong (full duplex)", interop.DoPingPong},
		{"empty stream", interop.DoEmptyStream},
		{"status code and message", interop.DoStatusCodeAndMessage},
		{"custom metadata", interop.DoCustomMetadata},
		{"cancel after first response", interop.DoCancelAfterFirstResponse},
		{"timeout on sleeping server", interop.DoTimeoutOnSleepingServer},
		{"special status message", interop.DoSpecialStatusMessage},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.do(ctx, c) })
	}
}

// selfSignedTLS returns a server certificate for 127.0.0.1.
func selfSignedTLS(t *testing.T) tls.Certificate {
	t.Helper()
	certPEM, keyPEM, err := peer.SelfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// startGust serves a grpc-go server on gust/server through the adapter.
func startGust(t *testing.T, mode server.Mode, tlsConf *tls.Config) *server.Server {
	t.Helper()
	s := &server.Server{Handler: server.HTTPHandler(newServer()), Config: server.Config{
		Mode: mode, H2C: tlsConf == nil, TLS: tlsConf, HTTP2: server.HTTP2Config{OverTLS: tlsConf != nil},
	}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

// dial connects a grpc-go client to addr, over TLS if secure.
func dial(t *testing.T, addr string, secure bool) *grpc.ClientConn {
	t.Helper()
	creds := insecure.NewCredentials()
	if secure {
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: true})
	}
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

func TestInteropOnGrpcGosOwnServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer()
	go srv.Serve(ln)
	defer srv.Stop()
	interopCases(t, testgrpc.NewTestServiceClient(dial(t, ln.Addr().String(), false)))
}

func TestInteropOnGustServer(t *testing.T) {
	cert := selfSignedTLS(t)
	for _, tc := range []struct {
		name string
		mode server.Mode
		tls  bool
	}{
		{"h2c, Auto", server.Auto, false},
		{"h2c, Pooled", server.Pooled, false},
		{"TLS, Auto", server.Auto, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conf *tls.Config
			if tc.tls {
				conf = &tls.Config{Certificates: []tls.Certificate{cert}}
			}
			s := startGust(t, tc.mode, conf)
			cc := dial(t, s.Addr().String(), tc.tls)
			interopCases(t, testgrpc.NewTestServiceClient(cc))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			interop.DoUnimplementedMethod(ctx, cc)
		})
	}
}

// serverGoroutines counts the goroutines running gust/server's code: its
// loops, and the workers and handlers of requests in progress.
func serverGoroutines() int {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/gust-http/gust/server.") {
			n++
		}
	}
	return n
}

// TestIdleGRPCConnectionsHoldNoGoroutine opens 300 gRPC connections to
// gust/server, each making one call and then idle: the server's goroutines
// stay within its loops and a few more, none per connection.
func TestIdleGRPCConnectionsHoldNoGoroutine(t *testing.T) {
	const conns, loops = 300, 2
	s := &server.Server{Handler: server.HTTPHandler(newServer()), Config: server.Config{Loops: loops, H2C: true}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for range conns {
		cc := dial(t, s.Addr().String(), false)
		interop.DoEmptyUnaryCall(ctx, testgrpc.NewTestServiceClient(cc))
	}
	if open := s.Stats().OpenConns; open != conns {
		t.Fatalf("%d connections open, want %d", open, conns)
	}
	// Handlers that just ended may still be unwinding: wait for the count
	// to settle, within a deadline.
	deadline := time.Now().Add(10 * time.Second)
	got := serverGoroutines()
	for got > loops+16 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		got = serverGoroutines()
	}
	if got > loops+16 {
		t.Errorf("%d goroutines in gust/server with %d idle gRPC connections, want at most loops + 16 = %d", got, conns, loops+16)
	}
	t.Logf("%d idle gRPC connections: %d goroutines in gust/server (%d loops)", conns, got, loops)
}
