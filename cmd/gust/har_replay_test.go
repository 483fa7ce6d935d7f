package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestFlowFromHARReplays: the flow from-har makes of testdata/login.har
// replays with gust load --flow against a server like the one recorded,
// which hands every login a new token and user id: every check passes,
// and the server sees only tokens and ids it issued, each sent back on
// the requests that follow its login (the recorded ones never).
func TestFlowFromHARReplays(t *testing.T) {
	var (
		mu     sync.Mutex
		issued = map[string]string{} // token -> user id
		n      int
		wrong  atomic.Int64
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		id, ok := issued[token]
		mu.Unlock()
		switch {
		case r.URL.Path == "/":
			w.Write([]byte("<html></html>"))
		case r.URL.Path == "/login" && r.Method == http.MethodPost:
			mu.Lock()
			n++
			tok, id := "tok-"+strconv.Itoa(1000000+n), "user-"+strconv.Itoa(90000000+n)
			issued[tok] = id
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"token":"` + tok + `","ttl":"3600","user":{"id":"` + id + `","name":"Ada"}}`))
		case r.URL.Path == "/items":
			if !ok || r.URL.Query().Get("session") != token {
				wrong.Add(1)
				http.Error(w, "wrong token", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"items":[]}`))
		case strings.HasPrefix(r.URL.Path, "/users/"):
			if !ok || r.URL.Path != "/users/"+id+"/orders" {
				wrong.Add(1)
				http.Error(w, "wrong user", http.StatusForbidden)
				return
			}
			w.Write([]byte(`[]`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	out, _, err := runFromHAR(t, "testdata/login.har")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "login.flow.yaml")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	s := flowRun(t, "--flow", file, "--vus", "10", "--iterations", "200", srv.URL)
	if s.Flows.Iterations != 200 || s.Flows.ChecksFailed != 0 || s.Flows.ChecksPassed != 800 {
		t.Errorf("iterations %d, checks passed %d, failed %d: want 200 iterations and 800 checks passed", s.Flows.Iterations, s.Flows.ChecksPassed, s.Flows.ChecksFailed)
	}
	if w := wrong.Load(); w != 0 {
		t.Errorf("the server saw %d requests with a token or user id it did not give that user", w)
	}
}
