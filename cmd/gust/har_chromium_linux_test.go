//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/load/flow"
	"go.yaml.in/yaml/v3"
)

// loginSitePage is the page headless Chromium records: a stylesheet, an
// image and a script (and the favicon Chromium asks for, which the site
// does not have), which logs in (POST /login with JSON), reads the
// token the answer gives and lists /items with it as a Bearer token, then
// writes the outcome into the title.
const loginSitePage = `<!doctype html>
<meta charset="utf-8">
<title>pending</title>
<link rel="stylesheet" href="/style.css">
<img src="/logo.png" alt="logo">
<pre id="out">pending</pre>
<script src="/app.js"></script>
`

const loginSiteScript = `(async () => {
  const say = (s) => { document.getElementById("out").textContent = s; document.title = s; };
  try {
    const login = await fetch("/login", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user: "ada", password: "analytical" }) });
    const { token } = await login.json();
    const items = await fetch("/items?limit=3", { headers: { "Authorization": "Bearer " + token, "Accept": "application/json" } });
    const list = await items.json();
    say(items.ok ? "ok " + list.items.length + " items" : "fail " + items.status);
  } catch (e) {
    say("fail " + e);
  }
})();
`

// loginSite is the recorded site: every login gets a new token in JSON
// and a session cookie; /items wants both, and counts the requests whose
// token it did not give or whose cookie is not that login's.
type loginSite struct {
	mu            sync.Mutex
	sessions      map[string]string // token -> session cookie
	logins, items atomic.Int64
	wrong         atomic.Int64
	logo          []byte
}

func newLoginSite(t *testing.T) *loginSite {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return &loginSite{sessions: map[string]string{}, logo: b.Bytes()}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *loginSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(loginSitePage))
	case r.URL.Path == "/app.js":
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte(loginSiteScript))
	case r.URL.Path == "/style.css":
		w.Header().Set("Content-Type", "text/css")
		w.Write([]byte("body { font-family: sans-serif; }\n"))
	case r.URL.Path == "/logo.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.logo)
	case r.URL.Path == "/login" && r.Method == http.MethodPost:
		var who struct{ User, Password string }
		if json.NewDecoder(r.Body).Decode(&who) != nil || who.User == "" || who.Password == "" {
			http.Error(w, "want a JSON user and password", http.StatusBadRequest)
			return
		}
		s.logins.Add(1)
		token, sid := randomHex(16), randomHex(8)
		s.mu.Lock()
		s.sessions[token] = sid
		s.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true})
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"token":"` + token + `","user":"` + who.User + `"}`))
	case r.URL.Path == "/items":
		s.items.Add(1)
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		sid, issued := s.sessions[token]
		s.mu.Unlock()
		c, err := r.Cookie("sid")
		if !ok || !issued || err != nil || c.Value != sid {
			s.wrong.Add(1)
			http.Error(w, "wrong token", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":["anvil","bellows","chisel"],"limit":"` + r.URL.Query().Get("limit") + `"}`))
	default:
		http.NotFound(w, r)
	}
}

var summaryCounts = regexp.MustCompile(`(\d+) steps from (\d+) requests \(dropped: (\d+) static assets, (\d+) to other origins\); (\d+) captures suggested`)

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// recordHAR loads pageURL in headless Chromium, waits until the page's
// request for a URL ending in last has finished (and all before it), and
// returns the HAR of what the page fetched and the page's title.
func recordHAR(t *testing.T, pageURL, last string) ([]byte, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browser, wsURL := startChromium(t, ctx)
	rec := newHARRecorder()
	c, err := dialCDP(wsURL, rec.event)
	if err != nil {
		t.Fatalf("%v\n%s", err, browser.output())
	}
	defer c.close()
	defer c.call(ctx, "", "Browser.close", nil, nil)
	session, err := attachPage(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.call(ctx, session, "Network.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.call(ctx, session, "Page.navigate", map[string]string{"url": pageURL}, nil); err != nil {
		t.Fatal(err)
	}
	if err := rec.waitSettled(ctx, last); err != nil {
		t.Fatalf("%v\nchromium:\n%s", err, browser.output())
	}
	if err := rec.fetchBodies(ctx, c, session); err != nil {
		t.Fatal(err)
	}
	var title struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := c.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": "document.title", "returnByValue": true}, &title); err != nil {
		t.Fatal(err)
	}
	har, err := rec.har(title.Result.Value)
	if err != nil {
		t.Fatal(err)
	}
	return har, title.Result.Value
}

// TestFlowFromChromiumHARReplays records a HAR in headless Chromium from
// a page whose script logs in and lists items with the token it got, turns
// it into a flow with gust flow from-har, and replays the flow with gust
// load --flow against the same server: the page's steps in order, the
// stylesheet, image and script dropped, the token captured and sent back
// as {{token}}, the session cookie left to the flow's jar; every check
// passes, and the server sees no token or cookie it did not give.
func TestFlowFromChromiumHARReplays(t *testing.T) {
	needChromium(t)
	for _, tc := range []struct {
		name     string
		tls      bool
		protocol string   // the one Chromium speaks
		replay   []string // gust load's flags for the target
	}{
		{"over HTTP/1.1", false, "HTTP/1.1", nil},
		// Chromium's HTTP/2 headers are in lower case, with pseudo-headers;
		// flows speak HTTP/1.1, which the server speaks too.
		{"over HTTP/2 with TLS", true, "http/2.0", []string{"--insecure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := newLoginSite(t)
			srv := httptest.NewUnstartedServer(site)
			if tc.tls {
				srv.EnableHTTP2 = true
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			recordAndReplay(t, site, srv.URL, tc.protocol, tc.replay)
		})
	}
}

// recordAndReplay records the login page of site at base, turns the HAR
// (whose requests Chromium made over protocol) into a flow, checks its
// steps and replays it with the flags replay.
func recordAndReplay(t *testing.T, site *loginSite, base, protocol string, replay []string) {
	har, title := recordHAR(t, base+"/", "/items?limit=3")
	if title != "ok 3 items" {
		t.Errorf("the page says %q, want \"ok 3 items\"", title)
	}
	if w := site.wrong.Load(); w != 0 {
		t.Fatalf("the browser sent %d wrong tokens", w)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Response struct {
					HTTPVersion string `json:"httpVersion"`
				} `json:"response"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(har, &doc); err != nil || len(doc.Log.Entries) == 0 || doc.Log.Entries[0].Response.HTTPVersion != protocol {
		t.Errorf("the HAR's first answer came over %+v (%v), want %s", doc.Log.Entries, err, protocol)
	}
	file := filepath.Join(t.TempDir(), "login.har")
	if err := os.WriteFile(file, har, 0o644); err != nil {
		t.Fatal(err)
	}
	out, summary, err := runFromHAR(t, file)
	if err != nil {
		t.Fatalf("%v\nthe HAR:\n%s", err, har)
	}
	t.Logf("%s%s", summary, out)
	// Six requests, and the favicon's when Chromium asked for it before
	// the page's last request ended.
	m := summaryCounts.FindStringSubmatch(summary)
	if m == nil || m[1] != "3" || m[2] != "6" && m[2] != "7" || atoi(m[3]) != atoi(m[2])-3 || m[4] != "0" || m[5] != "1" {
		t.Errorf("summary %q, want 3 steps from 6 or 7 requests, the rest static assets, and 1 capture", summary)
	}
	if _, err := flow.Compile([]byte(out), flow.Options{File: "login.flow.yaml"}); err != nil {
		t.Fatalf("the flow does not compile: %v\n%s", err, out)
	}
	var got flowOut
	if err := yaml.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []struct{ method, url string }{{"GET", "/"}, {"POST", "/login"}, {"GET", "/items?limit=3"}}
	if len(got.Steps) != len(want) {
		t.Fatalf("%d steps, want %d:\n%s", len(got.Steps), len(want), out)
	}
	for i, w := range want {
		if st := got.Steps[i]; st.Method != w.method || st.URL != w.url || st.Check["status"] != 200 {
			t.Errorf("step %d is %s %s checking %v, want %s %s checking status 200", i+1, st.Method, st.URL, st.Check, w.method, w.url)
		}
	}
	login, items := got.Steps[1], got.Steps[2]
	if login.Capture["token"]["json"] != "token" || !strings.Contains(login.Body, `"user":"ada"`) || login.Headers["Content-Type"] != "application/json" {
		t.Errorf("the login step does not capture json token, or lost its body or type: %+v", login)
	}
	if items.Headers["Authorization"] != "Bearer {{token}}" {
		t.Errorf("the items step sends Authorization %q, want \"Bearer {{token}}\"", items.Headers["Authorization"])
	}
	for _, gone := range []string{"style.css", "logo.png", "app.js", "favicon", "Cookie", "sid=", "User-Agent", "Sec-", "Host:", "Connection", "authority", "scheme", "Origin", "Referer"} {
		if strings.Contains(out, gone) {
			t.Errorf("the flow keeps %q:\n%s", gone, out)
		}
	}

	flowFile := filepath.Join(t.TempDir(), "login.flow.yaml")
	if err := os.WriteFile(flowFile, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	logins, itemsSeen := site.logins.Load(), site.items.Load()
	s := flowRun(t, append(append([]string{"--flow", flowFile, "--vus", "10", "--iterations", "300"}, replay...), base)...)
	if s.Flows.Iterations != 300 || s.Flows.ChecksFailed != 0 || s.Flows.ChecksPassed != 900 || s.Flows.Aborted != 0 {
		t.Errorf("iterations %d, checks passed %d, failed %d, aborted %d: want 300 iterations and 900 checks passed",
			s.Flows.Iterations, s.Flows.ChecksPassed, s.Flows.ChecksFailed, s.Flows.Aborted)
	}
	if l, i := site.logins.Load()-logins, site.items.Load()-itemsSeen; l != 300 || i != 300 {
		t.Errorf("the replay made %d logins and %d item lists, want 300 of each", l, i)
	}
	if w := site.wrong.Load(); w != 0 {
		t.Errorf("the server saw %d requests with a token or session cookie it did not give that user", w)
	}
}
