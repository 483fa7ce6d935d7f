package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/grpcmsg"
)

// gust load's gRPC calls (load.Config.GRPC, the request encoded by
// load/grpcmsg) against grpc-go's own server: unary calls all OK, an
// unimplemented method counted UNIMPLEMENTED, a server-streaming call's
// messages counted.
// interopProto is the part of grpc-go's interop TestService these calls
// use, wire-compatible with its messages.
const interopProto = "testdata/interop.proto"

// grpcLoad runs n calls of method with the request message in JSON
// against addr, as gust load --grpc-call sets them up.
func grpcLoad(t *testing.T, addr, proto, method, json string, n int64) *load.Config {
	t.Helper()
	m, err := grpcmsg.Compile([]string{proto}, nil, "grpc.testing.TestService/"+method)
	if err != nil {
		t.Fatal(err)
	}
	body, err := m.Body([]byte(json))
	if err != nil {
		t.Fatal(err)
	}
	return &load.Config{
		URL: "http://" + addr + m.Path, Method: "POST", Body: body, HTTP2: true, GRPC: true,
		Header:      [][2]string{{"content-type", "application/grpc"}, {"te", "trailers"}, {"grpc-timeout", "10000m"}},
		Connections: 2, Streams: 4, Requests: n, Loops: 1, Timeout: 10 * time.Second,
	}
}

func TestGRPCLoadAgainstGrpcGo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer()
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	proto := interopProto
	const n = 200
	for _, tc := range []struct {
		name, method, json string
		status             string
		perCall            int64 // response messages per call
	}{
		{"every empty call is OK", "EmptyCall", "", "OK", 1},
		{"every unary call is OK", "UnaryCall", `{"response_size": 100, "payload": {"body": "aGVsbG8="}}`, "OK", 1},
		{"an unimplemented method is UNIMPLEMENTED", "UnimplementedCall", "{}", "UNIMPLEMENTED", 0},
		{"a server-streaming call counts its 10 messages", "StreamingOutputCall",
			`{"response_parameters": [{"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}, {"size": 1}]}`, "OK", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := load.Run(ctx, *grpcLoad(t, ln.Addr().String(), proto, tc.method, tc.json, n))
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests != n || r.ErrorCount() != 0 || r.Status[200] != n {
				t.Fatalf("%d responses (statuses %v), errors %v; want %d answered 200", r.Requests, r.Status, r.Errors, n)
			}
			if r.GRPC == nil || len(r.GRPC.Status) != 1 || r.GRPC.Status[tc.status] != n || r.GRPC.Messages != n*tc.perCall {
				t.Fatalf("gRPC %+v, want %d calls %s and %d messages", r.GRPC, n, tc.status, n*tc.perCall)
			}
		})
	}
}
