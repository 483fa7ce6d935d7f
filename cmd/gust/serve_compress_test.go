package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/gust-http/gust/internal/hello"
)

// TestServeCompress checks --compress with --body-json on each engine and
// API: gzip asked, gzip answered, the JSON document decoded; nothing
// asked, the JSON sent as it is.
func TestServeCompress(t *testing.T) {
	want := hello.JSON(100 << 10)
	for _, tc := range []struct{ engine, api, suffix string }{
		{"gust", "native", " (engine gust, auto, native)"},
		{"gust", "nethttp", " (engine gust, auto, nethttp)"},
		{"nethttp", "", " (engine nethttp)"},
	} {
		t.Run(tc.engine+" "+tc.api, func(t *testing.T) {
			h := handlerConfig{Compress: true}
			if err := h.useJSON(len(want), false); err != nil {
				t.Fatal(err)
			}
			cfg := serveConfig{Addr: "127.0.0.1:0", Engine: tc.engine, Mode: "auto", API: tc.api, Handler: h}
			lines, cancel, done := startServe(t, cfg)
			base := urlFromLine(t, <-lines, "gust serve: listening on ", tc.suffix)
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}
			for _, accept := range []string{"gzip", ""} {
				req, _ := http.NewRequest("GET", base+"/", nil)
				if accept != "" {
					req.Header.Set("Accept-Encoding", accept)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if ce := resp.Header.Get("Content-Encoding"); ce != accept {
					t.Fatalf("Accept-Encoding %q: Content-Encoding %q", accept, ce)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q, want application/json", ct)
				}
				if accept == "gzip" {
					zr, err := gzip.NewReader(bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					if body, err = io.ReadAll(zr); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(body, want) {
					t.Errorf("Accept-Encoding %q: %d bytes, want the %d of hello.JSON", accept, len(body), len(want))
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("runServe: %v", err)
			}
		})
	}
}

func TestServeBodyJSONRefusals(t *testing.T) {
	for _, args := range [][]string{{"--body-json", "10"}, {"--body-json", "2000", "--body-size", "10"}} {
		cmd := newServeCmd()
		cmd.SetArgs(append(args, "--addr", "127.0.0.1:0"))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), "--body-json") {
			t.Errorf("%v: error %v, want one naming --body-json", args, err)
		}
	}
}
