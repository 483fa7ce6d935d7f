package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
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

// reflectAsk sends one ServerReflectionRequest (field num = value) to
// service on base and returns the answer's fields, by number, and the
// grpc-status.
func reflectAsk(t *testing.T, client *http.Client, base, path string, num protowire.Number, value string) (map[protowire.Number][]byte, string) {
	t.Helper()
	msg := protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), value)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(grpcFrame(0, msg)))
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fields := map[protowire.Number][]byte{}
	if len(body) >= 5 {
		for b := body[5:]; len(b) > 0; {
			n, typ, l := protowire.ConsumeTag(b)
			if l < 0 || typ != protowire.BytesType {
				t.Fatalf("answer % x", body)
			}
			v, m := protowire.ConsumeBytes(b[l:])
			if m < 0 {
				t.Fatalf("answer % x", body)
			}
			fields[n] = v
			b = b[l+m:]
		}
	}
	return fields, resp.Trailer.Get("Grpc-Status")
}

// TestServeGRPCReflectionAnswers: gust serve's reflection, v1 and
// v1alpha alike, gives echo.proto's descriptor by file name and by any
// symbol in it (service, method, message), lists gust.echo.Echo, says
// NOT_FOUND for what it does not have, and a method of the reflection
// service other than ServerReflectionInfo is UNIMPLEMENTED.
func TestServeGRPCReflectionAnswers(t *testing.T) {
	base := startGRPCServe(t, serveConfig{Engine: "gust", Mode: "auto", API: "nethttp"})
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for _, version := range []string{"v1", "v1alpha"} {
		path := "/grpc.reflection." + version + ".ServerReflection/ServerReflectionInfo"
		t.Run(version, func(t *testing.T) {
			for _, ask := range []struct {
				num   protowire.Number
				value string
			}{{reflFileByFilename, echoProtoName}, {reflFileContaining, "gust.echo.Echo"}, {reflFileContaining, "gust.echo.Echo.Bidi"}, {reflFileContaining, "gust.echo.Msg"}} {
				fields, status := reflectAsk(t, client, base, path, ask.num, ask.value)
				files, ok := fields[reflFileResponse]
				if status != "0" || !ok {
					t.Fatalf("%d=%s: status %s, answer fields %v", ask.num, ask.value, status, fields)
				}
				fdBytes, n := protowire.ConsumeBytes(files[protowire.SizeTag(1):])
				fd := &descriptorpb.FileDescriptorProto{}
				if n < 0 || proto.Unmarshal(fdBytes, fd) != nil || fd.GetName() != echoProtoName || fd.GetPackage() != "gust.echo" || len(fd.GetService()[0].GetMethod()) != 4 {
					t.Fatalf("%d=%s: descriptor %v", ask.num, ask.value, fd)
				}
			}
			fields, _ := reflectAsk(t, client, base, path, reflListServices, "*")
			if !bytes.Contains(fields[reflServicesResp], []byte("gust.echo.Echo")) {
				t.Errorf("list_services: % x", fields[reflServicesResp])
			}
			for _, ask := range []struct {
				num   protowire.Number
				value string
			}{{reflFileByFilename, "nope.proto"}, {reflFileContaining, "gust.echo.Nope"}, {reflExtension, "gust.echo.Msg"}} {
				fields, status := reflectAsk(t, client, base, path, ask.num, ask.value)
				e := fields[reflErrorResp]
				if status != "0" || len(e) < 2 || e[0] != 1<<3 || e[1] != grpcNotFound {
					t.Errorf("%d=%s: status %s, error % x; want NOT_FOUND", ask.num, ask.value, status, e)
				}
			}
			_, status := reflectAsk(t, client, base, strings.Replace(path, "ServerReflectionInfo", "Other", 1), reflListServices, "*")
			if status != "12" {
				t.Errorf("another method: grpc-status %s, want 12", status)
			}
		})
	}
}
