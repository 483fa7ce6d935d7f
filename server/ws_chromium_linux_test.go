//go:build linux

package server

import (
	"context"
	"html"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPage is served at / by the test server: its script opens a
// WebSocket to /ws on the same origin (ws or wss as the page came),
// echoes a text, a binary and a 300 kB message, asks the server to close,
// and writes the outcome into <pre id="out"> (and the title):
// "ok text,binary,large extensions=... close=CODE reason=..." or
// "fail ...". Then it sends the outcome to /result, which lets the server
// answer /hold: that image holds the page's load event, at which Chromium
// dumps the DOM, until the outcome is written.
const chromiumPage = `<!doctype html>
<meta charset="utf-8">
<title>pending</title>
<pre id="out">pending</pre>
<img src="/hold" alt="">
<script>
const done = (s) => {
  document.getElementById("out").textContent = s;
  document.title = s;
  fetch("/result", { method: "POST", body: s });
};
const steps = [];
const text = "héllo, wörld", bin = new Uint8Array(256).map((_, i) => i), large = "x".repeat(300000);
try {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.binaryType = "arraybuffer";
  ws.onopen = () => ws.send(text);
  ws.onmessage = (e) => {
    if (steps.length === 0) {
      if (e.data !== text) return done("fail text: " + String(e.data).slice(0, 40));
      steps.push("text");
      ws.send(bin);
    } else if (steps.length === 1) {
      const got = e.data instanceof ArrayBuffer ? new Uint8Array(e.data) : null;
      if (!got || got.length !== bin.length || got.some((b, i) => b !== bin[i])) return done("fail binary");
      steps.push("binary");
      ws.send(large);
    } else if (steps.length === 2) {
      if (e.data !== large) return done("fail large: " + String(e.data).length + " characters");
      steps.push("large");
      ws.send("close");
    }
  };
  ws.onerror = () => steps.push("error");
  ws.onclose = (e) => done((steps.join() === "text,binary,large" ? "ok " : "fail ") + steps.join() +
    " extensions=" + (ws.extensions || "none") + " close=" + e.code + " reason=" + e.reason);
} catch (e) {
  done("fail " + e);
}
</script>
`

var chromiumOut = regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`)

// TestWebSocketChromium loads chromiumPage in headless Chromium from a
// gust server that also upgrades /ws (the echo WebSocket, deflate on), over
// http and https (a self-signed certificate, accepted with
// --ignore-certificate-errors), and reads the outcome from the dumped DOM.
// (--virtual-time-budget does not wait for a WebSocket: the page holds its
// load event instead.)
func TestWebSocketChromium(t *testing.T) {
	needClient(t, []string{"chromium"})
	ws := wsEcho()
	ws.Deflate = true
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
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
					// Blocking is allowed in Auto mode: the handler leaves
					// the loop after its budget.
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
			var s *Server
			if scheme == "http" {
				s = start(t, h, Config{Mode: Auto})
			} else {
				s = startTLS(t, h, Config{Mode: Auto})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
				"--no-first-run", "--user-data-dir="+t.TempDir(), "--ignore-certificate-errors",
				"--dump-dom", scheme+"://"+s.Addr().String()+"/")
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
			t.Logf("%s", got)
			for _, want := range []string{"ok text,binary,large ", " extensions=permessage-deflate", " close=4000 reason=asked to"} {
				if !strings.Contains(got, want) {
					t.Errorf("page says %q, want it to contain %q", got, want)
				}
			}
		})
	}
}
