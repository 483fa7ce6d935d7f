//go:build linux

package server

import (
	"os/exec"
	"strings"
	"testing"
)

// Real WebSocket clients against the echo WebSocket (wsEcho), over ws and
// wss, with and without permessage-deflate.

func TestWebSocketRealClientsEcho(t *testing.T) {
	clients := []struct {
		name string
		need []string
		args func(url, mode string) []string
	}{
		{"python websockets", []string{"python3", "websockets"}, func(url, mode string) []string {
			return []string{"python3", "testdata/clients/py_websockets.py", url, mode}
		}},
	}
	ws := wsEcho()
	ws.Deflate = true
	h := HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(ws) })
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			needClient(t, cl.need)
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
						out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
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
					})
				}
			}
		})
	}
}
