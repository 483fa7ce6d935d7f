package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
)

// gust serve --http3 answers gust load's HTTP/3 on the TLS port, and says
// so in its start-up line.
func TestServeHTTP3(t *testing.T) {
	for _, mode := range []string{"inline", "auto"} {
		t.Run(mode, func(t *testing.T) {
			cfg := serveConfig{Addr: "127.0.0.1:0", Engine: "gust", Mode: mode, API: "native", HTTP3: true,
				TLS: serveTLSFlags{SelfSigned: true}}
			lines, cancel, done := startServe(t, cfg)
			base := urlFromLine(t, <-lines, "gust serve: listening on ", " (engine gust, "+mode+", native, h3 over UDP)")
			if !strings.HasPrefix(base, "https://") {
				t.Fatalf("listening on %s, want https", base)
			}
			ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
			defer stop()
			res, err := load.Run(ctx, load.Config{URL: base + "/", HTTP3: true, TLS: load.TLSConfig{Insecure: true},
				Connections: 2, Streams: 4, Requests: 500, Loops: 1, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests != 500 || res.Status[200] != 500 || res.ErrorCount() != 0 {
				t.Errorf("requests %d, status %v, errors %v; want 500 answered 200", res.Requests, res.Status, res.Errors)
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

func TestServeHTTP3RefusesWithoutTLSOrOnNetHTTP(t *testing.T) {
	for _, tc := range []struct {
		cfg  serveConfig
		want string
	}{
		{serveConfig{Engine: "gust", Mode: "auto", API: "native", HTTP3: true}, "serve: HTTP/3 always runs over TLS: add --tls-self-signed, or --tls-cert and --tls-key, to --http3"},
		{serveConfig{Engine: "nethttp", Mode: "auto", API: "native", HTTP3: true, TLS: serveTLSFlags{SelfSigned: true}}, "serve: --http3 needs --engine gust (net/http does not speak QUIC)"},
	} {
		if err := tc.cfg.check(); err == nil || err.Error() != tc.want {
			t.Errorf("check(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
