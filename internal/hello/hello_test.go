package hello

import (
	"context"
	"io"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     []byte
		delay    time.Duration
		method   string
		wantBody string
	}{
		{"nil answers Text", nil, 0, "GET", Text},
		{"a body of its own", []byte("abc"), 0, "POST", "abc"},
		{"an empty body", []byte{}, 0, "GET", ""},
		{"after a delay", nil, 20 * time.Millisecond, "PUT", Text},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			began := time.Now()
			Handler(tc.body, tc.delay).ServeHTTP(rec, httptest.NewRequest(tc.method, "/any/path", nil))
			if took := time.Since(began); took < tc.delay {
				t.Errorf("answered after %s, want at least %s", took, tc.delay)
			}
			res := rec.Result()
			got, _ := io.ReadAll(res.Body)
			if string(got) != tc.wantBody || res.StatusCode != 200 {
				t.Errorf("status %d body %q, want 200 %q", res.StatusCode, got, tc.wantBody)
			}
			if ct, cl := res.Header.Get("Content-Type"), res.Header.Get("Content-Length"); ct != "text/plain; charset=utf-8" || cl != strconv.Itoa(len(tc.wantBody)) {
				t.Errorf("Content-Type %q Content-Length %q", ct, cl)
			}
		})
	}
}

func TestHandlerLeavesAGoneClientUnanswered(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	Handler(nil, time.Hour).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
	if rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != "" {
		t.Errorf("answered a gone client: %q", rec.Body.String())
	}
}
