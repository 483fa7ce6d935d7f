package main

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/peers/internal/wscheck"
)

// TestReusePortTwoEnginesShareOnePort starts two engines on one address,
// as two nbio processes with -reuseport would, and gets answers there.
// (That a port in use is refused without it is internal/peer's test: nbio
// v1.6.12's Start, failing to listen, sometimes hangs in its own Stop.)
func TestReusePortTwoEnginesShareOnePort(t *testing.T) {
	if raceDetector {
		// As TestWebSocketPaths: the race detector reports races inside
		// nbio (a connection's address, written by its accept goroutine and
		// read on a poller) on some runs; go test ./nbio runs this.
		t.Skip("nbio's accept-to-poller hand-off is invisible to the race detector")
	}
	f := peer.Flags{Addr: wscheck.FreeAddr(t), ReusePort: true}
	for i := range 2 {
		conf := newConfig(f, false)
		if err := configure(&conf, f); err != nil {
			t.Fatal(err)
		}
		engine := nbhttp.NewEngine(conf)
		if err := engine.Start(); err != nil {
			t.Fatalf("engine %d on %s with -reuseport: %v", i, f.Addr, err)
		}
		defer engine.Stop()
	}

	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	for i := range 8 {
		resp, err := client.Get(f.URL(f.Addr) + "/")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != hello.Text {
			t.Fatalf("request %d: got %d %q, want 200 %q", i, resp.StatusCode, body, hello.Text)
		}
	}

}
