package main

import (
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"
)

func TestServeHTTP2AcceptsH2CBesideHTTP11(t *testing.T) {
	cases := []struct{ engine, mode, api, suffix string }{
		{"nethttp", "pooled", "native", " (engine nethttp, h2c)"},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases,
			struct{ engine, mode, api, suffix string }{"gust", "pooled", "native", " (engine gust, pooled, native, h2c)"},
			struct{ engine, mode, api, suffix string }{"gust", "inline", "native", " (engine gust, inline, native, h2c)"},
			struct{ engine, mode, api, suffix string }{"gust", "pooled", "nethttp", " (engine gust, pooled, nethttp, h2c)"})
	}
	for _, tc := range cases {
		t.Run(tc.engine+" "+tc.mode+" "+tc.api, func(t *testing.T) {
			cfg := serveConfig{Addr: "127.0.0.1:0", Engine: tc.engine, Mode: tc.mode, API: tc.api, HTTP2: true}
			lines, cancel, done := startServe(t, cfg)
			base := urlFromLine(t, <-lines, "gust serve: listening on ", tc.suffix)

			tr := &http.Transport{Protocols: new(http.Protocols)}
			tr.Protocols.SetUnencryptedHTTP2(true)
			defer tr.CloseIdleConnections()
			for _, client := range []struct {
				name  string
				c     *http.Client
				major int
			}{{"h2c prior knowledge", &http.Client{Transport: tr}, 2}, {"HTTP/1.1", &http.Client{}, 1}} {
				resp, err := client.c.Get(base + "/anything")
				if err != nil {
					t.Fatalf("%s: %v", client.name, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(body) != "Hello, Go!" || resp.ProtoMajor != client.major {
					t.Errorf("%s: got %s %d %q", client.name, resp.Proto, resp.StatusCode, body)
				}
			}
			tr.CloseIdleConnections()
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
