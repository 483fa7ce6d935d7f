package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestServeGRPCReflectionDescribesTheGuidesProto: the service gust serve
// describes by reflection is docs/guides/grpc/echo.proto, byte for byte.
func TestServeGRPCReflectionDescribesTheGuidesProto(t *testing.T) {
	doc, err := os.ReadFile("../../docs/guides/grpc/echo.proto")
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != echoProtoSource {
		t.Fatal("echoProtoSource differs from docs/guides/grpc/echo.proto: copy the file into serve_grpc_reflect.go")
	}
	if _, err := newGRPCReflection(); err != nil {
		t.Fatal(err)
	}
}

// TestLoadGRPCReflectAgainstServe: gust load --grpc-reflect describes
// each kind of method by asking gust serve --grpc (h2c on both engines,
// h2 over TLS), then runs it: every call OK, every message counted; and a
// server without the service, the method or gRPC at all is a one-line
// error before the run.
func TestLoadGRPCReflectAgainstServe(t *testing.T) {
	cert, key := certPair(t)
	for _, srv := range []struct {
		name string
		cfg  serveConfig
	}{
		{"gust h2c", serveConfig{Engine: "gust", Mode: "auto", API: "nethttp"}},
		{"nethttp h2c", serveConfig{Engine: "nethttp"}},
		{"gust h2 over TLS", serveConfig{Engine: "gust", Mode: "auto", API: "nethttp", TLS: serveTLSFlags{Cert: cert, Key: key}}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			base := startGRPCServe(t, srv.cfg)
			for _, call := range []struct {
				method   string
				args     []string
				messages int64 // answers per call
			}{
				{"Unary", []string{"-d", `{"data":"aGk="}`}, 1},
				{"ServerStream", []string{"-d", `{"count":3}`}, 3},
				{"ClientStream", []string{"--grpc-stream-send", "4"}, 1},
				{"Bidi", []string{"--grpc-stream-send", "2"}, 2},
			} {
				args := append([]string{"load", "--grpc-reflect", "--grpc-call", "gust.echo.Echo/" + call.method,
					"-n", "20", "-c", "2", "--loops", "1", "--timeout", "5s", "-o", "json", "--cacert", cert}, call.args...)
				stdout, stderr, err := gust(t, append(args, base)...)
				if err != nil {
					t.Fatalf("%s: gust load: %v (stderr %q)", call.method, err, stderr)
				}
				var doc struct {
					GRPC struct {
						Status   map[string]int64
						Messages int64
					}
				}
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatalf("%s: %v\n%s", call.method, err, stdout)
				}
				if doc.GRPC.Status["OK"] != 20 || len(doc.GRPC.Status) != 1 || doc.GRPC.Messages != 20*call.messages {
					t.Errorf("%s: statuses %v, %d messages; want 20 OK and %d messages", call.method, doc.GRPC.Status, doc.GRPC.Messages, 20*call.messages)
				}
			}
			for _, bad := range []struct{ call, want string }{
				{"gust.echo.Nope/Unary", "no service gust.echo.Nope (it has gust.echo.Echo)"},
				{"gust.echo.Echo/Shout", "has no method Shout (it has Unary, ServerStream, ClientStream, Bidi)"},
			} {
				_, _, err := gust(t, "load", "--grpc-reflect", "--grpc-call", bad.call, "-n", "1", "--cacert", cert, base)
				wantOneLineError(t, err, bad.want)
			}
		})
	}
	t.Run("a server without gRPC", func(t *testing.T) {
		lines, cancel, done := startServe(t, serveConfig{Addr: "127.0.0.1:0", Engine: "gust", Mode: "auto", API: "native", HTTP2: true})
		defer func() {
			cancel()
			<-done
		}()
		base := "http://" + strings.Fields(strings.TrimPrefix(<-lines, "gust serve: listening on http://"))[0]
		_, _, err := gust(t, "load", "--grpc-reflect", "--grpc-call", "gust.echo.Echo/Unary", "-n", "1", base)
		wantOneLineError(t, err, "--grpc-reflect: "+base)
	})
	t.Run("with --grpc-proto", func(t *testing.T) {
		_, _, err := gust(t, "load", "--grpc-reflect", "--grpc-call", "gust.echo.Echo/Unary", "--grpc-proto", "../../docs/guides/grpc/echo.proto", "-n", "1", "http://127.0.0.1:1")
		wantOneLineError(t, err, "either --grpc-reflect or --grpc-proto")
	})
}

// startGRPCServe runs gust serve --grpc --http2 with cfg and returns its
// base URL (https:// with cfg.TLS).
func startGRPCServe(t *testing.T, cfg serveConfig) string {
	t.Helper()
	cfg.Addr, cfg.HTTP2, cfg.GRPC = "127.0.0.1:0", true, true
	lines, cancel, done := startServe(t, cfg)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runServe: %v", err)
		}
	})
	first, ok := <-lines
	if !ok {
		t.Fatalf("gust serve stopped: %v", <-done)
	}
	for _, scheme := range []string{"http", "https"} {
		if rest, ok := strings.CutPrefix(first, "gust serve: listening on "+scheme+"://"); ok {
			return scheme + "://" + strings.Fields(rest)[0]
		}
	}
	t.Fatalf("start-up line %q", first)
	return ""
}
