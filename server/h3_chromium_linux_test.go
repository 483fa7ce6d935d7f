package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// h3ChromiumPage is served at / to Chromium over HTTP/3. Its script
// fetches /hello (with an X-Test header), POSTs h3Body to /echo, and reads
// /stream with the streams API, asking for /release once part 0 is in (the
// server holds the rest of the response until then); it reads the
// navigation's and each fetch's nextHopProtocol from the Resource Timing
// entries, and writes all it saw as JSON into <pre id="out"> (h3PageResult)
// and POSTs it to /result, which lets /hold (an image holding the page's
// load event, at which Chromium dumps the DOM) answer.
const h3ChromiumPage = `<!doctype html>
<meta charset="utf-8">
<title>h3</title>
<pre id="out">pending</pre>
<img src="/hold" alt="">
<script>
const out = { steps: [] };
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
// hop waits (a bounded while) for path's Resource Timing entry, which is
// added once its body has been read, and returns its nextHopProtocol.
async function hop(path) {
  const name = new URL(path, location.href).href;
  for (let i = 0; i < 100; i++) {
    const e = performance.getEntriesByName(name);
    if (e.length) return e[e.length - 1].nextHopProtocol;
    await new Promise((r) => setTimeout(r, 20));
  }
  return "no Resource Timing entry";
}
async function run() {
  out.nav = performance.getEntriesByType("navigation")[0].nextHopProtocol;

  let r = await fetch("/hello?x=1", { headers: { "X-Test": "yes" }, cache: "no-store" });
  out.hello = { status: r.status, body: await r.text(), proto: r.headers.get("X-Proto"),
    sawTest: r.headers.get("X-Saw-Test"), hop: await hop("/hello?x=1") };
  out.steps.push("hello");

  const body = new Uint8Array(100000).map((_, i) => i % 251);
  r = await fetch("/echo", { method: "POST", body, cache: "no-store" });
  const back = new Uint8Array(await r.arrayBuffer());
  out.echo = { status: r.status, len: r.headers.get("X-Body-Len"), sha256: r.headers.get("X-Body-Sha256"),
    backLen: back.length, backSha256: hex(await crypto.subtle.digest("SHA-256", back)),
    same: back.length === body.length && back.every((b, i) => b === body[i]), hop: await hop("/echo") };
  out.steps.push("echo");

  r = await fetch("/stream", { cache: "no-store" });
  const reader = r.body.getReader(), dec = new TextDecoder();
  let text = "", reads = 0, released = false, beforeRelease = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    reads++;
    text += dec.decode(value, { stream: true });
    if (!released && text.includes("part 0\n")) {
      released = true;
      beforeRelease = text;
      const rel = await fetch("/release", { cache: "no-store" });
      out.release = { status: rel.status, hop: await hop("/release") };
    }
  }
  out.stream = { status: r.status, body: text, beforeRelease, reads, hop: await hop("/stream") };
  out.steps.push("stream");
}
run().catch((e) => { out.error = String(e); }).finally(() => {
  const s = JSON.stringify(out);
  document.getElementById("out").textContent = s;
  fetch("/result", { method: "POST", body: s });
});
</script>
`

// h3PageResult is what h3ChromiumPage writes.
type h3PageResult struct {
	Steps []string `json:"steps"`
	Error string   `json:"error"`
	Nav   string   `json:"nav"`
	Hello struct {
		Status  int    `json:"status"`
		Body    string `json:"body"`
		Proto   string `json:"proto"`
		SawTest string `json:"sawTest"`
		Hop     string `json:"hop"`
	} `json:"hello"`
	Echo struct {
		Status     int    `json:"status"`
		Len        string `json:"len"`
		Sha256     string `json:"sha256"`
		BackLen    int    `json:"backLen"`
		BackSha256 string `json:"backSha256"`
		Same       bool   `json:"same"`
		Hop        string `json:"hop"`
	} `json:"echo"`
	Stream struct {
		Status        int    `json:"status"`
		Body          string `json:"body"`
		BeforeRelease string `json:"beforeRelease"`
		Reads         int    `json:"reads"`
		Hop           string `json:"hop"`
	} `json:"stream"`
	Release struct {
		Status int    `json:"status"`
		Hop    string `json:"hop"`
	} `json:"release"`
}

var h3ChromiumOut = regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`)

// TestHTTP3Chromium loads h3ChromiumPage in headless Chromium from a gust
// server with HTTP/3, QUIC forced for its origin
// (--origin-to-force-quic-on) and its self-signed certificate trusted by
// its key's digest (--ignore-certificate-errors-spki-list), with a native
// handler in Auto and Pooled modes and with the net/http adapter. It
// checks that the navigation and every fetch went over "h3", that the
// server saw every request over HTTP/3, the GET's body and headers, that
// the POSTed 100 kB came back whole, and that the streamed response's
// first part reached the page's reader while the server held the rest.
func TestHTTP3Chromium(t *testing.T) {
	needClient(t, []string{"chromium"})
	cert, _ := testCert()
	spki := sha256.Sum256(cert.Leaf.RawSubjectPublicKeyInfo)
	for _, k := range h3Cases {
		t.Run(k.name, func(t *testing.T) {
			routes := newH3Routes(h3ChromiumPage)
			s := startH3Clients(t, k.mode, k.handler(routes))
			addr := s.Addr().String()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
				"--no-first-run", "--user-data-dir="+t.TempDir(), "--enable-quic",
				"--origin-to-force-quic-on="+addr,
				"--ignore-certificate-errors-spki-list="+base64.StdEncoding.EncodeToString(spki[:]),
				"--dump-dom", "https://"+addr+"/")
			cmd.WaitDelay = 5 * time.Second
			var stderr strings.Builder
			cmd.Stderr = &stderr
			dom, err := cmd.Output()
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
			m := h3ChromiumOut.FindSubmatch(dom)
			if m == nil {
				t.Fatalf("no <pre id=\"out\"> in the dumped DOM:\n%s\nstderr:\n%s", dom, stderr.String())
			}
			raw := html.UnescapeString(string(m[1]))
			t.Logf("page: %s", raw)
			var got h3PageResult
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("the page wrote %q, not its JSON (%v); stderr:\n%s", raw, err, stderr.String())
			}
			select {
			case posted := <-routes.results:
				if posted != raw {
					t.Errorf("/result got %q, the DOM says %q", posted, raw)
				}
			default:
				t.Errorf("the page's outcome never reached /result")
			}
			checkH3Page(t, &got)
			if n := routes.overTCP.Load(); n != 0 {
				t.Errorf("%d requests came over TCP, want all over HTTP/3", n)
			}
		})
	}
}

// checkH3Page checks what h3ChromiumPage saw.
func checkH3Page(t *testing.T, got *h3PageResult) {
	t.Helper()
	if got.Error != "" || strings.Join(got.Steps, ",") != "hello,echo,stream" {
		t.Errorf("the page got through %v, error %q", got.Steps, got.Error)
	}
	for _, h := range []struct{ what, hop string }{
		{"navigation", got.Nav}, {"GET /hello", got.Hello.Hop}, {"POST /echo", got.Echo.Hop},
		{"GET /stream", got.Stream.Hop}, {"GET /release", got.Release.Hop},
	} {
		if h.hop != "h3" {
			t.Errorf("%s: nextHopProtocol %q, want h3", h.what, h.hop)
		}
	}
	if h := got.Hello; h.Status != 200 || h.Body != "hello over h3 /hello?x=1" || h.Proto != "3" || h.SawTest != "yes" {
		t.Errorf("GET /hello: status %d, body %q, X-Proto %q, X-Saw-Test %q", h.Status, h.Body, h.Proto, h.SawTest)
	}
	want := h3BodySha256()
	if e := got.Echo; e.Status != 200 || e.Len != "100000" || e.Sha256 != want || e.BackLen != 100000 || e.BackSha256 != want || !e.Same {
		t.Errorf("POST /echo: status %d, the server got %s bytes (sha256 %s), the page got %d back (sha256 %s, same %v); want 100000, %s",
			e.Status, e.Len, e.Sha256, e.BackLen, e.BackSha256, e.Same, want)
	}
	if st := got.Stream; st.Status != 200 || st.Body != "part 0\npart 1\npart 2\n" || st.BeforeRelease != "part 0\n" {
		t.Errorf("GET /stream: status %d, body %q, read before /release %q (in %d reads)", st.Status, st.Body, st.BeforeRelease, st.Reads)
	}
	if got.Release.Status != 204 {
		t.Errorf("GET /release: status %d", got.Release.Status)
	}
}
