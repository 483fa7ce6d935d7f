//go:build linux

package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gust-http/gust/cmd/internal/wspaths"
	"github.com/gust-http/gust/server"
)

// wsEchoServer runs gust serve's WebSocket endpoints (gust/server, in
// this process) on loopback and returns the /ws URL.
func wsEchoServer(t *testing.T) string {
	t.Helper()
	return wsEchoServerWith(t, server.Config{Loops: 1})
}

// wsEchoServerWith is wsEchoServer with cfg.
func wsEchoServerWith(t *testing.T, cfg server.Config) string {
	t.Helper()
	e := wspaths.New(false, 0)
	s := &server.Server{Handler: e.Native(server.HandlerFunc(func(c *server.Ctx) { c.WriteString("Hello, Go!") })),
		Config: cfg}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return "ws://" + s.Addr().String() + wspaths.EchoPath
}

func TestLoadWebSocketRejectsBadInput(t *testing.T) {
	ws := wsEchoServer(t)
	http := "http://127.0.0.1:1/"
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a negative message size", []string{"--ws-size", "-1", ws}, "--ws-size must be between 1 and"},
		{"no messages in flight", []string{"--ws-inflight", "0", ws}, "--ws-inflight must be between 1 and 1024, got 0"},
		{"holding at a rate", []string{"--ws-hold", "--rate", "100", ws}, "--ws-hold sends no messages, so it takes no --rate or -q"},
		{"holding for a number of messages", []string{"--ws-hold", "-n", "100", ws}, "give a duration (-z), not -n"},
		{"holding with a message size", []string{"--ws-hold", "--ws-size", "10", ws}, "--ws-hold sends no messages: drop --ws-size"},
		{"a ping interval without holding", []string{"--ws-ping", "1s", ws}, "add --ws-hold"},
		{"a size and a payload", []string{"--ws-size", "10", "-d", "x", ws}, "give either --ws-size or -d/-D"},
		{"ws flags on an http URL", []string{"--ws-inflight", "4", http}, "--ws-inflight needs a ws:// or wss:// URL"},
		{"--ws-hold on an http URL", []string{"--ws-hold", http}, "--ws-hold needs a ws:// or wss:// URL"},
		{"pipelining a WebSocket", []string{"--pipeline", "4", ws}, "use --ws-inflight, not --pipeline"},
		{"HTTP/2 to a WebSocket server without HTTP/2", []string{"--http2", ws}, "does not speak HTTP/2"},
		{"a POST upgrade", []string{"-m", "POST", ws}, "a WebSocket upgrade is a GET request, not POST"},
		{"text that is not UTF-8", []string{"--ws-text", "-d", "\xff", ws}, "--ws-text needs a payload of valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, append([]string{"load", "-z", "1s"}, tt.args...)...)
			wantOneLineError(t, err, tt.want)
			if code := exitCode(err); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
		})
	}
}

func TestLoadWebSocketEchoesAndReports(t *testing.T) {
	ws := wsEchoServer(t)
	stdout, _, err := gust(t, "load", "-n", "200", "-c", "4", "--ws-inflight", "2", "--ws-text", "-o", "json", ws)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Requests  int64            `json:"requests"`
		Protocol  string           `json:"protocol"`
		Errors    map[string]int64 `json:"errors"`
		WebSocket *struct {
			Upgrades         int64 `json:"upgrades"`
			MessagesReceived int64 `json:"messages_received"`
			Held             int64 `json:"held"`
			Inflight         int   `json:"inflight"`
			Text             bool  `json:"text"`
		} `json:"websocket"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	w := doc.WebSocket
	if doc.Requests != 200 || doc.Protocol != "websocket" || w == nil || doc.Errors["upgrade"] != 0 {
		t.Fatalf("requests %d protocol %q websocket %v errors %v", doc.Requests, doc.Protocol, w, doc.Errors)
	}
	if w.Upgrades != 4 || w.MessagesReceived != 200 || w.Held != 4 || w.Inflight != 2 || !w.Text {
		t.Errorf("websocket %+v, want 4 upgrades and held, 200 text messages back, 2 in flight", *w)
	}
}

func TestLoadWebSocketOverHTTP2(t *testing.T) {
	h2c := wsEchoServerWith(t, server.Config{Loops: 1, H2C: true, HTTP2: server.HTTP2Config{ExtendedConnect: true}})
	stdout, _, err := gust(t, "load", "--http2", "-n", "100", "-c", "2", "-o", "json", h2c)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Requests  int64 `json:"requests"`
		WebSocket *struct {
			Upgrades int64 `json:"upgrades"`
			HTTP2    bool  `json:"http2"`
		} `json:"websocket"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Requests != 100 || doc.WebSocket == nil || doc.WebSocket.Upgrades != 2 || !doc.WebSocket.HTTP2 {
		t.Fatalf("requests %d websocket %+v, want 100 messages on 2 HTTP/2 upgrades", doc.Requests, doc.WebSocket)
	}
	without := wsEchoServerWith(t, server.Config{Loops: 1, H2C: true})
	_, _, err = gust(t, "load", "--http2", "-n", "10", without)
	wantOneLineError(t, err, "no SETTINGS_ENABLE_CONNECT_PROTOCOL, RFC 8441): drop --http2")
}
