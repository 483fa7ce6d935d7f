package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
)

// grpcProto writes a small service's .proto file and returns its path.
func grpcProto(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "echo.proto")
	src := `syntax = "proto3";
package echo;
message Req { string text = 1; }
message Resp { string text = 1; }
service Echo {
  rpc Say(Req) returns (Resp);
  rpc Chat(stream Req) returns (stream Resp);
}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGRPCFlagsMakeAPostOfOneEncodedMessage(t *testing.T) {
	f := &loadFlags{}
	cmd := loadCommand(f)
	if err := cmd.ParseFlags([]string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", grpcProto(t), "-d", `{"text":"hi"}`, "--timeout", "20s", "-m", "8", "-n", "1"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.URL != "http://127.0.0.1:1/echo.Echo/Say" || cfg.Method != "POST" || !cfg.HTTP2 || !cfg.GRPC || cfg.Streams != 8 {
		t.Fatalf("config %s %s, HTTP2 %v, GRPC %v, streams %d", cfg.Method, cfg.URL, cfg.HTTP2, cfg.GRPC, cfg.Streams)
	}
	if want := []byte{0, 0, 0, 0, 4, 0x0a, 2, 'h', 'i'}; !bytes.Equal(cfg.Body, want) {
		t.Fatalf("body % x, want % x", cfg.Body, want)
	}
	want := [][2]string{{"content-type", "application/grpc"}, {"te", "trailers"}, {"grpc-timeout", "20000m"}}
	if len(cfg.Header) != 3 || cfg.Header[0] != want[0] || cfg.Header[1] != want[1] || cfg.Header[2] != want[2] {
		t.Fatalf("headers %v, want %v", cfg.Header, want)
	}
}

func TestGRPCStreamFlagsFollowTheMethodsKind(t *testing.T) {
	proto := grpcProto(t)
	for _, tc := range []struct {
		name string
		args []string
		want load.GRPCStream
	}{
		{"a unary method streams nothing", []string{"--grpc-call", "echo.Echo/Say"}, load.GRPCStream{}},
		{"a bidirectional method sends one message by default", []string{"--grpc-call", "echo.Echo/Chat"}, load.GRPCStream{Client: true, Server: true, Send: 1}},
		{"a bidirectional method sends as asked", []string{"--grpc-call", "echo.Echo/Chat", "--grpc-stream-send", "5", "--grpc-stream-interval", "10ms"},
			load.GRPCStream{Client: true, Server: true, Send: 5, Interval: 10 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &loadFlags{}
			cmd := loadCommand(f)
			if err := cmd.ParseFlags(append(tc.args, "--grpc-proto", proto, "-n", "1")); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.config("http://127.0.0.1:1")
			if err != nil {
				t.Fatal(err)
			}
			if cfg.GRPCStream != tc.want {
				t.Fatalf("GRPCStream %+v, want %+v", cfg.GRPCStream, tc.want)
			}
		})
	}
}

func TestGRPCFlagErrorsAreOneLine(t *testing.T) {
	proto := grpcProto(t)
	bad := filepath.Join(t.TempDir(), "bad.proto")
	if err := os.WriteFile(bad, []byte("syntax = \"proto3\";\nservice {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		url  string
		want string
	}{
		{"a proto without a call", []string{"--grpc-proto", proto}, "http://127.0.0.1:1", "need --grpc-call"},
		{"a call without a proto", []string{"--grpc-call", "echo.Echo/Say"}, "http://127.0.0.1:1", "add --grpc-proto"},
		{"a proto file that does not compile", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", bad}, "http://127.0.0.1:1", "bad.proto"},
		{"an unknown service", []string{"--grpc-call", "echo.Nope/Say", "--grpc-proto", proto}, "http://127.0.0.1:1", "no service echo.Nope"},
		{"an unknown method", []string{"--grpc-call", "echo.Echo/Shout", "--grpc-proto", proto}, "http://127.0.0.1:1", "has no method Shout"},
		{"JSON that does not fit the message", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto, "-d", `{"size":1}`}, "http://127.0.0.1:1", "request data for echo.Req"},
		{"messages per call for a unary method", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto, "--grpc-stream-send", "3"}, "http://127.0.0.1:1", "drop --grpc-stream-send"},
		{"an interval for a unary method", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto, "--grpc-stream-interval", "1ms"}, "http://127.0.0.1:1", "not client-streaming"},
		{"messages per call without a call", []string{"--grpc-stream-send", "3"}, "http://127.0.0.1:1", "need --grpc-call"},
		{"reflection without a call", []string{"--grpc-reflect"}, "http://127.0.0.1:1", "need --grpc-call"},
		{"reflection and an import path", []string{"--grpc-call", "echo.Echo/Say", "--grpc-reflect", "--grpc-import-path", "."}, "http://127.0.0.1:1", "either --grpc-reflect or --grpc-proto"},
		{"reflection from a server that is not there", []string{"--grpc-call", "echo.Echo/Say", "--grpc-reflect", "--timeout", "2s"}, "http://127.0.0.1:1", "--grpc-reflect: ask http://127.0.0.1:1"},
		{"no message per call", []string{"--grpc-call", "echo.Echo/Chat", "--grpc-proto", proto, "--grpc-stream-send", "0"}, "http://127.0.0.1:1", "give 1 to"},
		{"a negative interval", []string{"--grpc-call", "echo.Echo/Chat", "--grpc-proto", proto, "--grpc-stream-interval", "-1ms"}, "http://127.0.0.1:1", "0 or more"},
		{"a URL with a path", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto}, "http://127.0.0.1:1/api", "without one"},
		{"a WebSocket URL", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto}, "ws://127.0.0.1:1", "http:// (h2c) or https:// (h2)"},
		{"HTTP/1.1 asked for", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto, "--proto", "http1.1"}, "http://127.0.0.1:1", "HTTP/2 only"},
		{"a method other than POST", []string{"--grpc-call", "echo.Echo/Say", "--grpc-proto", proto, "-m", "PUT"}, "http://127.0.0.1:1", "is a POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &loadFlags{}
			cmd := loadCommand(f)
			if err := cmd.ParseFlags(append(tc.args, "-n", "1")); err != nil {
				t.Fatal(err)
			}
			_, err := f.config(tc.url)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tc.want)
			}
		})
	}
}

func TestGRPCTimeoutHeader(t *testing.T) {
	for d, want := range map[time.Duration]string{20 * time.Second: "20000m", time.Microsecond: "1m", 48 * time.Hour: "172800S"} {
		if got := grpcTimeout(d); got != want {
			t.Errorf("%s as grpc-timeout %q, want %q", d, got, want)
		}
	}
}
