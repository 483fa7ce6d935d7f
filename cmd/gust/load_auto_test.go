package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// alpnTarget is net/http's TLS server on loopback, offering h2 by ALPN
// when h2 is set and http/1.1 alone otherwise; it counts requests by
// protocol ("HTTP/2.0", "HTTP/1.1").
func alpnTarget(t *testing.T, h2 bool) (string, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Proto]++
		mu.Unlock()
		w.Write([]byte("Hello, Go!"))
	}))
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL + "/", func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

// TestLoadProtoAuto: --proto auto speaks h2 to a server that offers it
// and HTTP/1.1 to one that does not, and the report says what was used.
func TestLoadProtoAuto(t *testing.T) {
	tests := []struct {
		name      string
		h2        bool
		wantProto string
		want      []string
		wantNot   string
	}{
		{"a server offering h2 gets HTTP/2", true, "HTTP/2.0", []string{
			"2 connections on 2 loops, HTTP/2 or HTTP/1.1 by ALPN, 4 streams per h2 connection",
			"Protocols   h2: 2 connections, http/1.1: 0 connections",
			"HTTP/2      no RST_STREAM, no GOAWAY",
		}, ""},
		{"a server offering only http/1.1 gets HTTP/1.1", false, "HTTP/1.1", []string{
			"HTTP/2 or HTTP/1.1 by ALPN",
			"Protocols   h2: 0 connections, http/1.1: 2 connections",
		}, "HTTP/2      "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, seen := alpnTarget(t, tt.h2)
			stdout, _, err := gust(t, "load", "--quiet", "--insecure", "--loops", "2", "-c", "2", "-n", "200", "--proto", "auto", "-m", "4", url)
			if err != nil {
				t.Fatal(err)
			}
			if got := seen(); got[tt.wantProto] != 200 || len(got) != 1 {
				t.Errorf("server saw %v, want 200 %s requests", got, tt.wantProto)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("report lacks %q:\n%s", w, stdout)
				}
			}
			if tt.wantNot != "" && strings.Contains(stdout, tt.wantNot) {
				t.Errorf("report has %q:\n%s", tt.wantNot, stdout)
			}
		})
	}
}

// autoDoc is what the auto tests read of a JSON report.
type autoDoc struct {
	Requests  int64            `json:"requests"`
	Protocol  string           `json:"protocol"`
	Protocols map[string]int64 `json:"protocols"`
	HTTP2     *struct {
		Streams int `json:"streams"`
	} `json:"http2"`
}

// TestProtoAutoAgentsMerge: two --proto auto agents' JSON carries their
// connections per protocol, gust merge adds them, and an auto share is
// not merged with an h2 one.
func TestProtoAutoAgentsMerge(t *testing.T) {
	url, _ := alpnTarget(t, true)
	files, reports := agentShares(t, url, []string{"--insecure", "-c", "4", "-n", "400"},
		[]string{"--proto", "auto", "-m", "5", "--shard", "0/2"},
		[]string{"--proto", "auto", "-m", "5", "--shard", "1/2"},
		[]string{"--http2", "-m", "5", "--shard", "1/2"},
	)
	var agent0 autoDoc
	if err := json.Unmarshal([]byte(reports[0]), &agent0); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"h2": 2, "http/1.1": 0}; agent0.Protocol != "auto" || !maps.Equal(agent0.Protocols, want) {
		t.Errorf("agent 0: protocol %q, protocols %v; want auto, %v", agent0.Protocol, agent0.Protocols, want)
	}
	stdout, _, err := gust(t, "merge", "-o", "json", files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	var doc autoDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"h2": 4, "http/1.1": 0}
	if doc.Requests != 400 || doc.Protocol != "auto" || !maps.Equal(doc.Protocols, want) || doc.HTTP2 == nil || doc.HTTP2.Streams != 5 {
		t.Errorf("merged %+v; want 400 requests, auto, %v, 5 streams", doc, want)
	}
	_, _, err = gust(t, "merge", files[0], files[2])
	if err == nil || !strings.Contains(err.Error(), "(--proto auto) but") || strings.Contains(err.Error(), "\n") {
		t.Errorf("merging auto and h2 shares: err = %v, want a one-line refusal", err)
	}
}

// TestProtoFlagErrors: what --proto refuses, each a one-line error with
// exit status 2, before anything is sent.
func TestProtoFlagErrors(t *testing.T) {
	h2c, _ := h2cTarget(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"auto over http://", []string{"load", "--proto", "auto", h2c}, "--proto auto needs an https:// URL (the protocol is chosen by TLS's ALPN); for h2c with prior knowledge use --http2"},
		{"auto over http:// in a replay", []string{"replay", "--proto", "auto", "--target", h2c, "-"}, "--proto auto needs an https:// URL"},
		{"a protocol gust does not speak", []string{"load", "--proto", "h4", h2c}, `invalid argument "h4" for "--proto" flag: must be http1.1, h2, auto or h3`},
		{"HTTP/3 to an http:// URL", []string{"load", "--proto", "h3", h2c}, "--proto h3 needs an https:// URL"},
		{"--http3 with --http2", []string{"load", "--http3", "--http2", h2c}, "--http3 is --proto h3"},
		{"--http2 with another --proto", []string{"load", "--http2", "--proto", "auto", "https://127.0.0.1:1/"}, "--http2 is --proto h2: give one of them, not --http2 with --proto auto"},
		{"streams over HTTP/1.1", []string{"load", "--proto", "http1.1", "-m", "4", h2c}, "-m 4 (streams per connection) needs --http2, --http3 or --proto auto"},
		{"auto without keep-alive", []string{"load", "--proto", "auto", "--disable-keepalive", "https://127.0.0.1:1/"}, "drop --disable-keepalive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, tt.args...)
			wantOneLineError(t, err, tt.want)
			if code := exitCode(err); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
		})
	}
}

// TestProtoH2IsHTTP2: --proto h2 is what --http2 always was.
func TestProtoH2IsHTTP2(t *testing.T) {
	url, seen := h2cTarget(t)
	stdout, _, err := gust(t, "load", "--quiet", "--proto", "h2", "-m", "4", "-c", "1", "-n", "100", url+"/h2")
	if err != nil {
		t.Fatal(err)
	}
	if seen()["HTTP/2.0 GET /h2"] != 100 || !strings.Contains(stdout, "HTTP/2 (h2c), 4 streams per connection") {
		t.Errorf("server saw %v; report:\n%s", seen(), stdout)
	}
}

// TestReplayProtoAuto: gust replay shares --proto: a log replayed with
// --proto auto to a server offering h2 arrives over HTTP/2.
func TestReplayProtoAuto(t *testing.T) {
	url, seen := alpnTarget(t, true)
	log := accessLog(t, 100, false)
	stdout, _, err := gust(t, "replay", "--quiet", "--insecure", "--max", "--proto", "auto", "-m", "8", "-c", "2", "--target", url, log)
	if err != nil {
		t.Fatal(err)
	}
	if got := seen(); got["HTTP/2.0"] != 100 || len(got) != 1 {
		t.Errorf("server saw %v, want the log's 100 requests over HTTP/2", got)
	}
	// A replay ends with its log: the second connection may still be in
	// its handshake then, so only the first is sure to count.
	if !strings.Contains(stdout, "Protocols   h2: ") || !strings.Contains(stdout, "http/1.1: 0 connections") || strings.Contains(stdout, "h2: 0") {
		t.Errorf("report does not count the h2 connections:\n%s", stdout)
	}
}
