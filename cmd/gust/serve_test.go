package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHelloHandler(t *testing.T) {
	body25, err := filledBody(25)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		cfg       handlerConfig
		method    string
		path      string
		wantBody  string
		wantDelay time.Duration
	}{
		{
			name:     "the zero config answers Hello, Go!",
			method:   http.MethodGet,
			path:     "/",
			wantBody: "Hello, Go!",
		},
		{
			name:     "any method and path gets the same answer",
			method:   http.MethodPost,
			path:     "/some/deep/path?q=1",
			wantBody: "Hello, Go!",
		},
		{
			name:     "a body size gives a body of that many bytes",
			cfg:      handlerConfig{Body: body25},
			method:   http.MethodGet,
			path:     "/",
			wantBody: "Hello, Go!Hello, Go!Hello",
		},
		{
			name:     "a body size of zero gives an empty body",
			cfg:      handlerConfig{Body: []byte{}},
			method:   http.MethodGet,
			path:     "/",
			wantBody: "",
		},
		{
			name:      "a delay holds the answer back",
			cfg:       handlerConfig{Delay: 50 * time.Millisecond},
			method:    http.MethodGet,
			path:      "/",
			wantBody:  "Hello, Go!",
			wantDelay: 50 * time.Millisecond,
		},
		{
			name:      "with a slow path, its requests wait",
			cfg:       handlerConfig{Delay: 50 * time.Millisecond, SlowPath: "/slow"},
			method:    http.MethodGet,
			path:      "/slow",
			wantBody:  "Hello, Go!",
			wantDelay: 50 * time.Millisecond,
		},
		{
			name:     "with a slow path, the others do not",
			cfg:      handlerConfig{Delay: time.Hour, SlowPath: "/slow"},
			method:   http.MethodGet,
			path:     "/fast",
			wantBody: "Hello, Go!",
		},
		{
			name:     "a computing handler answers",
			cfg:      handlerConfig{Compute: 200 * time.Microsecond},
			method:   http.MethodGet,
			path:     "/",
			wantBody: "Hello, Go!",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHelloHandler(tt.cfg)
			rec := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			elapsed := time.Since(start)

			if rec.Code != http.StatusOK {
				t.Errorf("status = %d, want 200", rec.Code)
			}
			if got := rec.Body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type = %q, want text/plain", ct)
			}
			if cl, want := rec.Header().Get("Content-Length"), len(tt.wantBody); cl != strconv.Itoa(want) {
				t.Errorf("Content-Length = %q, want %d", cl, want)
			}
			if elapsed < tt.wantDelay {
				t.Errorf("answered after %s, want at least %s", elapsed, tt.wantDelay)
			}
		})
	}
}

func TestHelloHandlerStopsWaitingWhenTheClientLeaves(t *testing.T) {
	h := newHelloHandler(handlerConfig{Delay: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
	rec := httptest.NewRecorder()

	done := make(chan struct{})
	go func() {
		h.ServeHTTP(rec, req)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("handler still waiting 5s after its request was cancelled")
	}
	if rec.Body.Len() != 0 {
		t.Errorf("wrote %q to a cancelled request, want nothing", rec.Body.String())
	}
}

func TestFilledBody(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		wantErr bool
	}{
		{name: "zero bytes is an empty body", n: 0},
		{name: "fewer bytes than the greeting cut it short", n: 3},
		{name: "exactly the greeting", n: len(helloBody)},
		{name: "a large body", n: 1 << 20},
		{name: "a negative size is refused", n: -1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := filledBody(tt.n)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("filledBody(%d) = %d bytes, want an error", tt.n, len(body))
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q spans lines, want one", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("filledBody(%d): %v", tt.n, err)
			}
			if body == nil || len(body) != tt.n {
				t.Errorf("filledBody(%d) has %d bytes (nil %v)", tt.n, len(body), body == nil)
			}
		})
	}
}

func TestServeCmdRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "a negative body size", args: []string{"--body-size", "-1"}, want: "--body-size"},
		{name: "a negative delay", args: []string{"--delay", "-1s"}, want: "--delay"},
		{name: "an address without a port", args: []string{"--addr", "nonsense"}, want: "--addr"},
		{name: "a debug address without a port", args: []string{"--addr", "127.0.0.1:0", "--debug-addr", "nonsense"}, want: "--debug-addr"},
		{name: "a stray argument", args: []string{"extra"}, want: "extra"},
		{name: "a negative connection limit", args: []string{"--max-conns", "-1"}, want: "--max-conns"},
		{name: "a connection limit on net/http", args: []string{"--engine", "nethttp", "--max-conns", "10"}, want: "--max-conns needs --engine gust"},
		{name: "a negative head timeout", args: []string{"--read-header-timeout", "-1s"}, want: "--read-header-timeout"},
		{name: "negative loops", args: []string{"--loops", "-2"}, want: "--loops"},
		{name: "an unknown acceptor", args: []string{"--acceptor", "many"}, want: `--acceptor must be reuseport or one, got "many"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newServeCmd()
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceUsage = true
			cmd.SilenceErrors = true
			done := make(chan error, 1)
			go func() { done <- cmd.Execute() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("serve started instead of refusing its flags")
			}
			if err == nil {
				t.Fatal("Execute() = nil, want an error")
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error = %q, want one line mentioning %q", msg, tt.want)
			}
		})
	}
}

func TestRunServeAnswersAndShutsDown(t *testing.T) {
	cfg := serveConfig{Addr: "127.0.0.1:0", DebugAddr: "127.0.0.1:0"}
	lines, cancel, done := startServe(t, cfg)

	base := urlFromLine(t, <-lines, "gust serve: listening on ", " (engine nethttp)")
	debug := urlFromLine(t, <-lines, "gust serve: debug endpoints on ", "/debug/")

	for _, u := range []string{base + "/anything", debug + "/debug/vars"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200", u, resp.StatusCode)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runServe after cancel = %v, want nil", err)
		}
	case <-time.After(shutdownGrace + 2*time.Second):
		t.Fatal("runServe did not return after its context was cancelled")
	}
}

// startServe runs runServe(cfg) in the background and returns its start-up
// lines, the function that stops it, and where its result arrives.
func startServe(t *testing.T, cfg serveConfig) (<-chan string, context.CancelFunc, <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, cfg, pw) }()
	return lines, cancel, done
}

// urlFromLine cuts the URL out of a start-up line between prefix and suffix.
func urlFromLine(t *testing.T, line, prefix, suffix string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(line, prefix)
	if !ok {
		t.Fatalf("start-up line %q does not start with %q", line, prefix)
	}
	u, ok := strings.CutSuffix(rest, suffix)
	if !ok {
		t.Fatalf("start-up line %q does not end with %q", line, suffix)
	}
	return u
}

func TestRunServeOnGust(t *testing.T) {
	for _, tc := range []struct{ mode, api, acceptor string }{{"auto", "native", "reuseport"}, {"auto", "nethttp", "one"}, {"pooled", "native", "reuseport"}, {"inline", "native", "one"}, {"pooled", "nethttp", "one"}} {
		t.Run(tc.mode+" "+tc.api+" "+tc.acceptor, func(t *testing.T) {
			cfg := serveConfig{Addr: "127.0.0.1:0", DebugAddr: "127.0.0.1:0", Engine: "gust", Mode: tc.mode, API: tc.api, Loops: 2, Acceptor: tc.acceptor}
			lines, cancel, done := startServe(t, cfg)

			base := urlFromLine(t, <-lines, "gust serve: listening on ", " (engine gust, "+tc.mode+", "+tc.api+")")
			debug := urlFromLine(t, <-lines, "gust serve: debug endpoints on ", "/debug/")
			resp, err := http.Get(base + "/anything")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "Hello, Go!" {
				t.Errorf("got %d %q", resp.StatusCode, body)
			}
			resp, err = http.Get(debug + "/debug/vars")
			if err != nil {
				t.Fatal(err)
			}
			vars, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(vars), `"gust": {`) || !strings.Contains(string(vars), `"goroutines"`) {
				t.Errorf("/debug/vars lacks the gust server's counters: %.200s", vars)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("runServe after cancel = %v, want nil", err)
				}
			case <-time.After(shutdownGrace + 2*time.Second):
				t.Fatal("runServe did not return after its context was cancelled")
			}
		})
	}
}

func TestServeRejectsBadEngineChoices(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--engine", "nginx"},
		{"serve", "--mode", "turbo"},
		{"serve", "--api", "grpc"},
		{"serve", "--mode", "inline", "--delay", "1s"},
		{"serve", "--slow-path", "/slow"},
		{"serve", "--compute", "-1ms"},
	} {
		_, _, err := gust(t, args...)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("gust %v: err = %v, want a one-line refusal", args, err)
		}
	}
}

// TestServeLimitsReachTheEngine checks that --max-conns and
// --read-header-timeout are applied: a second connection is closed at
// once, and a head that does not arrive is cut.
func TestServeLimitsReachTheEngine(t *testing.T) {
	cfg := serveConfig{Addr: "127.0.0.1:0", Engine: "gust", Mode: "pooled", API: "native",
		MaxConns: 1, ReadHeaderTimeout: 300 * time.Millisecond}
	lines, _, _ := startServe(t, cfg)
	base := urlFromLine(t, <-lines, "gust serve: listening on ", " (engine gust, pooled, native)")
	addr := strings.TrimPrefix(base, "http://")
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	io.WriteString(first, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(first), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first connection: %v", err)
	}
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := second.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("a connection beyond --max-conns 1 was kept (read: %v)", err)
	}
	// Between requests IdleTimeout applies; a head that starts and stalls
	// is cut at the head timeout.
	io.WriteString(first, "GET / HT")
	first.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.Copy(io.Discard, first); isTimeout(err) {
		t.Error("a head that never ends outlived --read-header-timeout 300ms by seconds")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
