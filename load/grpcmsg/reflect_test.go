package grpcmsg

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
)

// reflectFiles compiles a service whose messages are in a file of their
// own and returns both files' FileDescriptorProtos, by name.
func reflectFiles(t *testing.T) map[string][]byte {
	t.Helper()
	src := map[string]string{
		"types.proto": "syntax = \"proto3\";\npackage echo;\nmessage Req { string text = 1; }\nmessage Resp { string text = 1; }\n",
		"svc.proto": "syntax = \"proto3\";\npackage echo;\nimport \"types.proto\";\n" +
			"service Echo {\n  rpc Say(Req) returns (Resp);\n  rpc Chat(stream Req) returns (stream Resp);\n}\n",
	}
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(src)}}
	compiled, err := c.Compile(context.Background(), "svc.proto", "types.proto")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range compiled {
		b, err := proto.Marshal(protodesc.ToFileDescriptorProto(f))
		if err != nil {
			t.Fatal(err)
		}
		out[f.Path()] = b
	}
	return out
}

// fakeReflection is a gRPC reflection server over h2c: services (by path
// prefix) answer as the test says; the rest are UNIMPLEMENTED.
type fakeReflection struct {
	files    map[string][]byte
	services map[string]bool // the reflection services served
	mu       sync.Mutex
	asked    []string // "field=value" of each request, in order
}

func (f *fakeReflection) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	w.Header().Set("Content-Type", "application/grpc")
	if !f.services[svc] {
		w.Header().Set("Grpc-Status", "12") // trailers-only
		return
	}
	body, _ := io.ReadAll(r.Body)
	var field protowire.Number
	var value string
	eachField(body[5:], func(num protowire.Number, v []byte, _ uint64) error {
		field, value = num, string(v)
		return nil
	})
	f.mu.Lock()
	f.asked = append(f.asked, string(rune('0'+field))+"="+value)
	f.mu.Unlock()
	var resp []byte
	switch {
	case field == reqFileContainingSymbol && strings.HasPrefix(value, "echo.Echo"):
		// The service's file only: its import is left to be asked for.
		resp = fileAnswer(f.files["svc.proto"])
	case field == reqFileByFilename && f.files[value] != nil:
		resp = fileAnswer(f.files[value])
	case field == reqListServices:
		svc := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "echo.Echo")
		list := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), svc)
		resp = protowire.AppendBytes(protowire.AppendTag(nil, respListServices, protowire.BytesType), list)
	default:
		e := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), statusNotFound)
		e = protowire.AppendString(protowire.AppendTag(e, 2, protowire.BytesType), "not found")
		resp = protowire.AppendBytes(protowire.AppendTag(nil, respError, protowire.BytesType), e)
	}
	w.Header().Set("Trailer", "Grpc-Status")
	frame := make([]byte, 5, 5+len(resp))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(resp)))
	w.Write(append(frame, resp...))
	w.Header().Set("Grpc-Status", "0")
}

// fileAnswer is a ServerReflectionResponse holding one file.
func fileAnswer(file []byte) []byte {
	fr := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), file)
	return protowire.AppendBytes(protowire.AppendTag(nil, respFileDescriptors, protowire.BytesType), fr)
}

// startFake serves h on h2c and returns its base URL and a client.
func startFake(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	return srv.URL, &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func TestReflectFindsTheMethodAndAsksForItsImports(t *testing.T) {
	for _, tc := range []struct {
		name     string
		services []string
	}{
		{"by v1", []string{reflectV1}},
		{"by v1alpha when v1 is unimplemented", []string{reflectV1alpha}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeReflection{files: reflectFiles(t), services: map[string]bool{}}
			for _, s := range tc.services {
				fake.services[s] = true
			}
			base, client := startFake(t, fake)
			m, err := Reflect(context.Background(), client, base, "echo.Echo/Chat")
			if err != nil {
				t.Fatal(err)
			}
			if m.Path != "/echo.Echo/Chat" || !m.ClientStreaming || !m.ServerStreaming || m.Input.FullName() != "echo.Req" || m.Output.FullName() != "echo.Resp" {
				t.Fatalf("method %s: client streaming %v, server streaming %v, %s -> %s", m.Path, m.ClientStreaming, m.ServerStreaming, m.Input.FullName(), m.Output.FullName())
			}
			if want := []string{"4=echo.Echo", "3=types.proto"}; strings.Join(fake.asked, " ") != strings.Join(want, " ") {
				t.Errorf("asked %q, want %q", fake.asked, want)
			}
			body, err := m.Body([]byte(`{"text":"hi"}`))
			if want := []byte{0, 0, 0, 0, 4, 0x0a, 2, 'h', 'i'}; err != nil || !bytes.Equal(body, want) {
				t.Errorf("body % x (%v), want % x", body, err, want)
			}
		})
	}
}

func TestReflectErrorsAreOneLine(t *testing.T) {
	files := reflectFiles(t)
	withReflection := &fakeReflection{files: files, services: map[string]bool{reflectV1: true}}
	without := &fakeReflection{files: files, services: map[string]bool{}}
	notGRPC := http.NotFoundHandler()
	for _, tc := range []struct {
		name string
		h    http.Handler
		call string
		want string
	}{
		{"a server without reflection", without, "echo.Echo/Say", "does not serve gRPC server reflection"},
		{"a server that is not gRPC", notGRPC, "echo.Echo/Say", "does not serve gRPC server reflection"},
		{"an unknown service", withReflection, "echo.Nope/Say", `no service echo.Nope (it has echo.Echo)`},
		{"an unknown method", withReflection, "echo.Echo/Shout", "has no method Shout (it has Say, Chat)"},
		{"a call written wrong", withReflection, "echo.Echo", "PACKAGE.SERVICE/METHOD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, client := startFake(t, tc.h)
			_, err := Reflect(context.Background(), client, base, tc.call)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tc.want)
			}
		})
	}
	t.Run("a server that is not there", func(t *testing.T) {
		_, client := startFake(t, without)
		_, err := Reflect(context.Background(), client, "http://127.0.0.1:1", "echo.Echo/Say")
		if err == nil || !strings.Contains(err.Error(), "--grpc-reflect: ask") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("err = %v, want one line saying the question failed", err)
		}
	})
}
