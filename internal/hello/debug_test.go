package hello

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDebugHandler(t *testing.T) {
	// Two handlers in one process must not panic on a second expvar.Publish.
	_ = DebugHandler()
	srv := httptest.NewServer(DebugHandler())
	defer srv.Close()

	tests := []struct {
		name       string
		path       string
		wantStatus int
		check      func(t *testing.T, body []byte)
	}{
		{
			name:       "debug vars report goroutines as an integer",
			path:       "/debug/vars",
			wantStatus: http.StatusOK,
			check: func(t *testing.T, body []byte) {
				var vars map[string]json.RawMessage
				if err := json.Unmarshal(body, &vars); err != nil {
					t.Fatalf("decode /debug/vars: %v", err)
				}
				var n int
				if err := json.Unmarshal(vars["goroutines"], &n); err != nil {
					t.Fatalf("goroutines = %s, want an integer: %v", vars["goroutines"], err)
				}
				if n < 1 {
					t.Errorf("goroutines = %d, want at least 1", n)
				}
			},
		},
		{
			name:       "the pprof index lists the goroutine profile",
			path:       "/debug/pprof/",
			wantStatus: http.StatusOK,
			check: func(t *testing.T, body []byte) {
				if !strings.Contains(string(body), "goroutine") {
					t.Errorf("pprof index does not mention goroutine")
				}
			},
		},
		{
			name:       "a named pprof profile is served",
			path:       "/debug/pprof/goroutine?debug=1",
			wantStatus: http.StatusOK,
		},
		{
			name:       "other paths are not found",
			path:       "/",
			wantStatus: http.StatusNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("GET %s: status %d, want %d", tt.path, resp.StatusCode, tt.wantStatus)
			}
			if tt.check != nil {
				tt.check(t, body)
			}
		})
	}
}
