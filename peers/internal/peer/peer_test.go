package peer

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestListenAndDebug(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         Flags
		wantErr   string
		wantDebug bool
	}{
		{"no debug listener unless asked", Flags{Addr: "127.0.0.1:0"}, "", false},
		{"a debug listener serves /debug/vars", Flags{Addr: "127.0.0.1:0", DebugAddr: "127.0.0.1:0"}, "", true},
		{"a bad address names its flag", Flags{Addr: "nowhere:-1"}, "listen on -addr", false},
		{"a bad debug address names its flag", Flags{Addr: "127.0.0.1:0", DebugAddr: "nowhere:-1"}, "listen on -debug-addr", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, dbg, err := Listen("test", tc.f)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			defer dbg.Shutdown(context.Background())
			if (dbg != nil) != tc.wantDebug {
				t.Fatalf("debug listener %v, want %v", dbg != nil, tc.wantDebug)
			}
			if dbg == nil {
				return
			}
			resp, err := http.Get("http://" + dbg.Addr().String() + "/debug/vars")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), `"goroutines"`) {
				t.Errorf("/debug/vars: %.100s", body)
			}
		})
	}
}

func TestWaitStopsTheServerWhenServingFails(t *testing.T) {
	served, stopped := errors.New("accept failed"), errors.New("stuck")
	for _, tc := range []struct {
		name     string
		shutdown error
		want     []error
	}{
		{"the serving error", nil, []error{served}},
		{"joined with the shutdown's", stopped, []error{served, stopped}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			errc <- served
			called := false
			err := Wait("test", "http://127.0.0.1:1", errc, func(context.Context) error { called = true; return tc.shutdown }, nil)
			if !called {
				t.Error("the server was not shut down")
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v, want it to hold %v", err, w)
				}
			}
		})
	}
}
