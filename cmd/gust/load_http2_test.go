package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// h2cTarget is net/http's HTTP/2 server with prior knowledge on loopback;
// it counts requests by protocol and method and path.
func h2cTarget(t *testing.T) (string, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		mu.Lock()
		key := r.Proto + " " + r.Method + " " + r.URL.Path
		if n > 0 {
			key += " body"
		}
		seen[key]++
		mu.Unlock()
		w.Write([]byte("Hello, Go!"))
	}), Protocols: &http.Protocols{}}
	srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String(), func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// TestLoadHTTP2Flags: --http2 with -m N (h2load's) or --streams N, -m
// still a method when it is not a number, and the report saying what was
// spoken.
func TestLoadHTTP2Flags(t *testing.T) {
	url, seen := h2cTarget(t)
	tests := []struct {
		name     string
		args     []string
		wantSeen string
		wantText string
	}{
		{"-m N is streams per connection", []string{"--http2", "-m", "10", "-c", "2", "-n", "200"}, "HTTP/2.0 GET /a", "2 connections on 2 loops, HTTP/2 (h2c), 10 streams per connection"},
		{"--streams says the same", []string{"--http2", "--streams", "4", "-c", "1", "-n", "200"}, "HTTP/2.0 GET /a", "HTTP/2 (h2c), 4 streams per connection"},
		{"-m POST is still the method, with -d", []string{"--http2", "-m", "post", "-d", "hello", "-c", "1", "-n", "200"}, "HTTP/2.0 POST /a body", "HTTP/2 (h2c), 1 stream per connection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := seen()[tt.wantSeen]
			stdout, _, err := gust(t, append(append([]string{"load", "--quiet", "--loops", "2"}, tt.args...), url+"/a")...)
			if err != nil {
				t.Fatal(err)
			}
			if got := seen()[tt.wantSeen] - before; got != 200 {
				t.Errorf("server saw %d %q requests, want 200 (all: %v)", got, tt.wantSeen, seen())
			}
			if !strings.Contains(stdout, tt.wantText) || !strings.Contains(stdout, "HTTP/2      no RST_STREAM, no GOAWAY") {
				t.Errorf("report lacks %q and the HTTP/2 line:\n%s", tt.wantText, stdout)
			}
		})
	}
	if _, _, err := gust(t, "load", "-m", "10", url); err == nil || !strings.Contains(err.Error(), "needs --http2") {
		t.Errorf("-m 10 without --http2: err = %v, want one saying it needs --http2", err)
	}
	if _, _, err := gust(t, "load", "--http2", "--pipeline", "4", url); err == nil || !strings.Contains(err.Error(), "not --pipeline") {
		t.Errorf("--http2 --pipeline 4: err = %v, want one refusing pipelining", err)
	}
}

// TestHTTP2AgentsMerge: two agents' --http2 -o json shares merge into one
// HTTP/2 run, and an HTTP/1.1 share is refused.
func TestHTTP2AgentsMerge(t *testing.T) {
	url, _ := h2cTarget(t)
	files, _ := agentShares(t, url+"/", []string{"-c", "4", "-n", "400"},
		[]string{"--http2", "-m", "5", "--shard", "0/2"},
		[]string{"--http2", "-m", "5", "--shard", "1/2"},
		[]string{"--shard", "1/2"},
	)
	stdout, _, err := gust(t, "merge", "-o", "json", files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Requests int64  `json:"requests"`
		Protocol string `json:"protocol"`
		HTTP2    struct {
			Streams int `json:"streams"`
		} `json:"http2"`
		Errors map[string]int64 `json:"errors"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Errors["stream_reset"]; doc.Requests != 400 || doc.Protocol != "h2c" || doc.HTTP2.Streams != 5 || !ok {
		t.Errorf("merged %+v; want 400 requests over h2c, 5 streams, HTTP/2's error kinds listed", doc)
	}
	if _, _, err := gust(t, "merge", files[0], files[2]); err == nil || !strings.Contains(err.Error(), "speaks h2c but") {
		t.Errorf("merging HTTP/2 and HTTP/1.1 shares: err = %v, want a refusal", err)
	}
}

// TestReplayHTTP2 replays a log over HTTP/2: every request arrives over
// HTTP/2, with its method and path.
func TestReplayHTTP2(t *testing.T) {
	url, seen := h2cTarget(t)
	log := accessLog(t, 100, false)
	stdout, _, err := gust(t, "replay", "--quiet", "--max", "--http2", "-m", "8", "-c", "2", "--target", url, log)
	if err != nil {
		t.Fatal(err)
	}
	got := seen()
	if got["HTTP/2.0 POST /orders"] != 20 || got["HTTP/2.0 GET /users/3"] == 0 {
		t.Errorf("server saw %v, want 20 POST /orders and the GETs, over HTTP/2", got)
	}
	if !strings.Contains(stdout, "HTTP/2 (h2c), 8 streams per connection") {
		t.Errorf("report does not say HTTP/2:\n%s", stdout)
	}
}

// agentShares runs one `gust load --quiet -o json` per share, with the
// common args, the share's own and url, as agents would, and writes each
// JSON report to a file of its own for gust merge; it returns the files
// and the reports.
func agentShares(t *testing.T, url string, common []string, shares ...[]string) (files, reports []string) {
	t.Helper()
	dir := t.TempDir()
	for i, share := range shares {
		args := append(append(append([]string{"load", "--quiet", "-o", "json"}, common...), share...), url)
		stdout, _, err := gust(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, fmt.Sprintf("agent%d.json", i))
		if err := os.WriteFile(file, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files, reports = append(files, file), append(reports, stdout)
	}
	return files, reports
}
