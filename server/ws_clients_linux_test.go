//go:build linux

package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Real WebSocket clients against the echo WebSocket (wsEcho), over ws and
// wss, with and without permessage-deflate.

func TestWebSocketRealClientsEcho(t *testing.T) {
	clients := []struct {
		name string
		need func(t *testing.T)
		args func(url, mode string) []string
	}{
		{"python websockets", func(t *testing.T) { needClient(t, []string{"python3", "websockets"}) }, func(url, mode string) []string {
			return []string{"python3", "testdata/clients/py_websockets.py", url, mode}
		}},
		{"node ws", func(t *testing.T) { needClient(t, []string{"node"}); needNodeModule(t, "ws") }, func(url, mode string) []string {
			return []string{"node", "testdata/clients/node_ws.mjs", url, mode}
		}},
	}
	ws := wsEcho()
	ws.Deflate = true
	h := HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) })
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			cl.need(t)
			for _, scheme := range []string{"ws", "wss"} {
				var s *Server
				if scheme == "ws" {
					s = start(t, h, Config{Mode: Auto})
				} else {
					s = startTLS(t, h, Config{Mode: Auto})
				}
				for _, mode := range []string{"plain", "deflate"} {
					t.Run(scheme+" "+mode, func(t *testing.T) {
						args := cl.args(scheme+"://"+s.Addr().String()+"/ws", mode)
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
						if err != nil {
							t.Fatalf("%v: %s", err, out)
						}
						want := "ok extensions=none close=4000"
						if mode == "deflate" {
							want = "ok extensions=permessage-deflate close=4000"
						}
						if got := strings.TrimSpace(string(out)); got != want {
							t.Errorf("got %q, want %q", got, want)
						}
						t.Logf("%s", out)
					})
				}
			}
		})
	}
}

// needNodeModule skips when the npm package name is not installed in
// testdata/clients/node_modules, but fails in CI, whose .ci/run installs
// it there (npm install --prefix server/testdata/clients).
func needNodeModule(t *testing.T, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("testdata", "clients", "node_modules", name, "package.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("npm package %s is missing from testdata/clients/node_modules; .ci/run installs it", name)
		}
		t.Skipf("npm package %s is not installed (npm install --prefix server/testdata/clients %s)", name, name)
	}
}
