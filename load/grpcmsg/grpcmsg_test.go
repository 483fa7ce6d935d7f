package grpcmsg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGRPCCompileFindsTheMethodAndEncodesItsRequestOnce(t *testing.T) {
	m, err := Compile([]string{"testdata/echo.proto"}, nil, "echo.Echo/Many")
	if err != nil {
		t.Fatal(err)
	}
	if m.Path != "/echo.Echo/Many" || !m.ServerStreaming || m.ClientStreaming || m.Input.FullName() != "echo.Req" {
		t.Fatalf("method %+v", m)
	}
	body, err := m.Body([]byte(`{"text":"hi","count":3}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, 0, 6, 0x0a, 2, 'h', 'i', 0x10, 3}
	if !bytes.Equal(body, want) {
		t.Fatalf("body % x, want % x", body, want)
	}
	empty, err := m.Body(nil)
	if err != nil || !bytes.Equal(empty, []byte{0, 0, 0, 0, 0}) {
		t.Fatalf("empty body % x, %v", empty, err)
	}
}

func TestGRPCErrorsAreOneLineNamingWhatIsWrong(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.proto")
	if err := os.WriteFile(bad, []byte("syntax = \"proto3\";\nmessage {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, call, file, data, want string
	}{
		{"a call without a method", "echo.Echo", "testdata/echo.proto", "", "PACKAGE.SERVICE/METHOD"},
		{"a proto file that does not parse", "echo.Echo/Say", bad, "", "bad.proto"},
		{"a proto file that is missing", "echo.Echo/Say", "testdata/none.proto", "", "none.proto"},
		{"an unknown service", "echo.Nope/Say", "testdata/echo.proto", "", "no service echo.Nope"},
		{"an unknown method", "echo.Echo/Shout", "testdata/echo.proto", "", "has no method Shout (it has Say, Many)"},
		{"JSON with an unknown field", "echo.Echo/Say", "testdata/echo.proto", `{"txt":"x"}`, "request data for echo.Req"},
		{"JSON of the wrong type", "echo.Echo/Say", "testdata/echo.proto", `{"count":"many"}`, "request data for echo.Req"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile([]string{tc.file}, nil, tc.call)
			if err == nil {
				_, err = m.Body([]byte(tc.data))
			}
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want one line with %q", msg, tc.want)
			}
		})
	}
}
