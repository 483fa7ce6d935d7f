package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesConnect checks that gust serve, a target and not a
// proxy, answers CONNECT with 405 and an Allow header on every engine and
// API, and goes on answering other requests on the same connection.
func TestServeRefusesConnect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    serveConfig
		suffix string
	}{
		{"net/http engine", serveConfig{Engine: "nethttp"}, " (engine nethttp)"},
		{"gust engine, native API", serveConfig{Engine: "gust", Mode: "pooled", API: "native"}, " (engine gust, pooled, native)"},
		{"gust engine, native API inline", serveConfig{Engine: "gust", Mode: "inline", API: "native"}, " (engine gust, inline, native)"},
		{"gust engine, nethttp API", serveConfig{Engine: "gust", Mode: "pooled", API: "nethttp"}, " (engine gust, pooled, nethttp)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Addr, tc.cfg.Loops = "127.0.0.1:0", 1
			lines, cancel, done := startServe(t, tc.cfg)
			defer func() {
				cancel()
				<-done
			}()
			base := urlFromLine(t, <-lines, "gust serve: listening on ", tc.suffix)
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(conn)
			io.WriteString(conn, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
			resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
			if err != nil {
				t.Fatalf("CONNECT: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != allowedMethods || string(body) != notAProxy {
				t.Errorf("CONNECT: %d, Allow %q, body %q; want 405, Allow %q", resp.StatusCode, resp.Header.Get("Allow"), body, allowedMethods)
			}
			io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err = http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("GET after CONNECT: %v", err)
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(body) != "Hello, Go!" {
				t.Errorf("GET after CONNECT: %d %q", resp.StatusCode, body)
			}
		})
	}
}
