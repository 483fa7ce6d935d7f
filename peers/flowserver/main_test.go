package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTokensAreEachUsersOwn(t *testing.T) {
	var s stats
	srv := httptest.NewServer(s.handler())
	defer srv.Close()
	get := func(path, auth string) (int, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	_, body := get("/login?user=7", "")
	if !strings.Contains(body, tokenOf("7")) || tokenOf("7") == tokenOf("8") {
		t.Fatalf("login answered %q", body)
	}
	if code, _ := get("/items?user=7", "Bearer "+tokenOf("7")); code != 200 {
		t.Errorf("user 7 with its token: %d", code)
	}
	if code, _ := get("/items?user=8", "Bearer "+tokenOf("7")); code != 403 {
		t.Errorf("user 8 with user 7's token: %d, want 403", code)
	}
	if s.logins.Load() != 1 || s.items.Load() != 1 || s.wrong.Load() != 1 {
		t.Errorf("stats: %d logins, %d items, %d wrong", s.logins.Load(), s.items.Load(), s.wrong.Load())
	}
}
