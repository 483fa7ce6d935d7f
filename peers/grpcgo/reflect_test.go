package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/interop"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"
	v1alphareflectiongrpc "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/grpcmsg"
)

// gust load --grpc-reflect (load/grpcmsg.Reflect) against grpc-go's own
// reflection service: v1 (newServer registers v1 and v1alpha), v1alpha
// alone (the fallback), and none (a one-line error). The interop
// TestService's files import others (empty.proto, messages.proto), which
// grpc-go sends with the first answer.

// serveGRPC serves srv on a loopback port and returns its base URL.
func serveGRPC(t *testing.T, srv *grpc.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return "http://" + ln.Addr().String()
}

// reflectClient speaks h2c with prior knowledge, as gust load does.
func reflectClient(t *testing.T) *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func TestReflectAgainstGrpcGo(t *testing.T) {
	v1alphaOnly := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(v1alphaOnly, interop.NewTestServer())
	v1alphareflectiongrpc.RegisterServerReflectionServer(v1alphaOnly, reflection.NewServer(reflection.ServerOptions{Services: v1alphaOnly}))
	for _, tc := range []struct {
		name string
		srv  *grpc.Server
	}{
		{"v1", newServer()},
		{"v1alpha alone", v1alphaOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := serveGRPC(t, tc.srv)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			duplex, err := grpcmsg.Reflect(ctx, reflectClient(t), base, "grpc.testing.TestService/FullDuplexCall")
			if err != nil {
				t.Fatal(err)
			}
			if !duplex.ClientStreaming || !duplex.ServerStreaming || duplex.Input.FullName() != "grpc.testing.StreamingOutputCallRequest" {
				t.Fatalf("FullDuplexCall: client streaming %v, server streaming %v, input %s", duplex.ClientStreaming, duplex.ServerStreaming, duplex.Input.FullName())
			}
			m, err := grpcmsg.Reflect(ctx, reflectClient(t), base, "grpc.testing.TestService/UnaryCall")
			if err != nil {
				t.Fatal(err)
			}
			body, err := m.Body([]byte(`{"response_size": 10, "payload": {"body": "aGVsbG8="}}`))
			if err != nil {
				t.Fatal(err)
			}
			const n = 50
			r, err := load.Run(ctx, load.Config{
				URL: base + m.Path, Method: "POST", Body: body, HTTP2: true, GRPC: true,
				Header:      [][2]string{{"content-type", "application/grpc"}, {"te", "trailers"}, {"grpc-timeout", "10000m"}},
				Connections: 1, Streams: 4, Requests: n, Loops: 1, Timeout: 10 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.GRPC == nil || r.GRPC.Status["OK"] != n || r.GRPC.Messages != n {
				t.Fatalf("gRPC %+v, want %d calls OK with a message each", r.GRPC, n)
			}
			_, err = grpcmsg.Reflect(ctx, reflectClient(t), base, "grpc.testing.NoService/UnaryCall")
			if err == nil || !strings.Contains(err.Error(), "no service grpc.testing.NoService (it has grpc.testing.TestService") {
				t.Fatalf("an unknown service: %v", err)
			}
		})
	}
	t.Run("without reflection", func(t *testing.T) {
		srv := grpc.NewServer()
		testgrpc.RegisterTestServiceServer(srv, interop.NewTestServer())
		base := serveGRPC(t, srv)
		_, err := grpcmsg.Reflect(context.Background(), reflectClient(t), base, "grpc.testing.TestService/UnaryCall")
		if err == nil || !strings.Contains(err.Error(), "does not serve gRPC server reflection") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("err = %v, want one line saying the server has no reflection", err)
		}
	})
}
