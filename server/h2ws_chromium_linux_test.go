//go:build linux

package server

import (
	"context"
	"html"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWebSocketOverH2Chromium loads chromiumPage from a gust server that
// speaks HTTP/2 over TLS with extended CONNECT: Chromium, holding an h2
// connection to the origin that allows it, opens the page's wss:// as an
// RFC 8441 stream on it. The test checks the page's echo outcome and that
// the WebSocket was a stream (the WSConn's HTTP/2 side), not a 101.
func TestWebSocketOverH2Chromium(t *testing.T) {
	needClient(t, []string{"chromium"})
	ws := wsEcho()
	ws.Deflate = true
	var overH2, overH1 atomic.Int64
	ws.OnOpen = func(c *WSConn) {
		if c.st != nil {
			overH2.Add(1)
		} else {
			overH1.Add(1)
		}
	}
	result := make(chan string, 1)
	h := HandlerFunc(func(c *Ctx) {
		switch string(c.Path()) {
		case "/":
			c.SetContentType("text/html; charset=utf-8")
			c.WriteString(chromiumPage)
		case "/ws":
			c.UpgradeWebSocket(ws)
		case "/result":
			select {
			case result <- string(c.Body()):
			default:
			}
			c.SetStatus(204)
		case "/hold":
			select {
			case r := <-result:
				result <- r
			case <-time.After(20 * time.Second):
			}
			c.SetStatus(204)
		default:
			c.SetStatus(404)
		}
	})
	cfg := h2wsConfig(Auto, true)
	s := serveForTest(t, &Server{Handler: h, Config: cfg})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--ignore-certificate-errors",
		"--dump-dom", "https://"+s.Addr().String()+"/")
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := chromiumOut.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no <pre id=\"out\"> in the dumped DOM:\n%s\nstderr:\n%s", out, stderr.String())
	}
	got := html.UnescapeString(string(m[1]))
	t.Logf("%s (WebSockets over HTTP/2: %d, over HTTP/1.1: %d)", got, overH2.Load(), overH1.Load())
	for _, want := range []string{"ok text,binary,large ", " extensions=permessage-deflate", " close=4000 reason=asked to"} {
		if !strings.Contains(got, want) {
			t.Errorf("page says %q, want it to contain %q", got, want)
		}
	}
	if overH2.Load() != 1 || overH1.Load() != 0 {
		t.Errorf("WebSockets over HTTP/2: %d, over HTTP/1.1: %d; want the one over HTTP/2", overH2.Load(), overH1.Load())
	}
}
