//go:build linux

package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientFiles writes the files the outside clients fetch: a 2 MiB binary,
// a text file, and a script with its gzip sibling (whose content is the
// script's, compressed, so a client that decodes gets the script).
func clientFiles(t *testing.T) (dir string, script []byte) {
	dir = fileTree(t, map[string]int{"big.bin": 2 << 20, "data.txt": 1000})
	script = bytes.Repeat([]byte("console.log('gust');\n"), 500)
	os.WriteFile(filepath.Join(dir, "app.js"), script, 0o644)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(script)
	w.Close()
	os.WriteFile(filepath.Join(dir, "app.js.gz"), gz.Bytes(), 0o644)
	return dir, script
}

// TestFilesWithCurl: whole files, a range, a resumed download, a
// conditional GET and a compressed sibling, as curl asks for them.
func TestFilesWithCurl(t *testing.T) {
	needClient(t, []string{"curl"})
	dir, script := clientFiles(t)
	s, _ := startFiles(t, dir, FileServerOptions{}, Config{})
	base := "http://" + s.Addr().String()
	curl := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "curl", append([]string{"-sS"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		return out
	}
	big := patterned(2 << 20)
	if got := curl(base + "/big.bin"); !bytes.Equal(got, big) {
		t.Errorf("whole file: %d bytes", len(got))
	}
	if got := curl("-r", "1000-1999", base+"/big.bin"); !bytes.Equal(got, big[1000:2000]) {
		t.Errorf("range: %q", got)
	}
	part := filepath.Join(t.TempDir(), "resumed")
	os.WriteFile(part, big[:123456], 0o644)
	curl("-C", "-", "-o", part, base+"/big.bin")
	if got, _ := os.ReadFile(part); !bytes.Equal(got, big) {
		t.Errorf("resumed download: %d bytes", len(got))
	}
	if got := string(curl("-o", "/dev/null", "-w", "%{http_code}", "-z", time.Now().Add(time.Hour).Format(time.RFC1123), base+"/data.txt")); got != "304" {
		t.Errorf("If-Modified-Since: %s", got)
	}
	if got := curl("--compressed", base+"/app.js"); !bytes.Equal(got, script) {
		t.Errorf("compressed: %d bytes, want the script's %d", len(got), len(script))
	}
	head := string(curl("-D", "-", "-o", "/dev/null", "--compressed", base+"/app.js"))
	if !strings.Contains(head, "Content-Encoding: gzip") || !strings.Contains(head, "Vary: Accept-Encoding") {
		t.Errorf("compressed response's head:\n%s", head)
	}
}

// TestFilesWithPythonRequests: the same with Python's requests.
func TestFilesWithPythonRequests(t *testing.T) {
	needClient(t, []string{"python3", "requests"})
	dir, script := clientFiles(t)
	s, _ := startFiles(t, dir, FileServerOptions{}, Config{})
	prog := `
import sys, requests
base, want_script = sys.argv[1], open(sys.argv[2], "rb").read()
s = requests.Session()
big = s.get(base + "/big.bin").content
assert len(big) == 2 << 20, len(big)
r = s.get(base + "/big.bin", headers={"Range": "bytes=100-199"})
assert r.status_code == 206 and r.content == big[100:200], (r.status_code, r.headers)
assert r.headers["Content-Range"] == "bytes 100-199/2097152", r.headers
r = s.get(base + "/big.bin", headers={"Range": "bytes=0-1,-2"})
assert r.status_code == 206 and r.headers["Content-Type"].startswith("multipart/byteranges"), r.headers
r = s.get(base + "/app.js", headers={"Accept-Encoding": "gzip"})
assert r.headers["Content-Encoding"] == "gzip" and r.content == want_script, r.headers
etag = r.headers["ETag"]
r = s.get(base + "/app.js", headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
assert r.status_code == 304, r.status_code
r = s.get(base + "/big.bin", headers={"Range": "bytes=5000000-"})
assert r.status_code == 416 and r.headers["Content-Range"] == "bytes */2097152", r.headers
print("ok")
`
	scriptPath := filepath.Join(dir, "app.js")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "python3", "-c", prog, "http://"+s.Addr().String(), scriptPath).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("python: %v\n%s", err, out)
	}
	_ = script
}

// filesPage fetches a range and a compressed script with fetch() and
// writes the outcome into <pre id="out">; /hold (an image) keeps the load
// event, at which Chromium dumps the DOM, until /result has it.
const filesPage = `<!doctype html>
<meta charset="utf-8">
<pre id="out">pending</pre>
<img src="/hold" alt="">
<script>
const done = (s) => { document.getElementById("out").textContent = s; fetch("/result", { method: "POST", body: s }); };
(async () => {
  try {
    const r = await fetch("/data.txt", { headers: { Range: "bytes=10-19" } });
    const part = await r.text();
    const js = await fetch("/app.js");
    const text = await js.text();
    done("range=" + r.status + ":" + part.length + ":" + r.headers.get("Content-Range") +
      " script=" + js.status + ":" + text.length + ":" + (text.startsWith("console.log('gust');") ? "decoded" : "garbled"));
  } catch (e) { done("fail " + e); }
})();
</script>
`

var filesOut = regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`)

// TestFilesWithChromium: headless Chromium fetches a range and a
// precompressed script (which it decodes).
func TestFilesWithChromium(t *testing.T) {
	needClient(t, []string{"chromium"})
	dir, script := clientFiles(t)
	fs, err := NewFileServer(dir, FileServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	result := make(chan struct{})
	h := HandlerFunc(func(c *Ctx) {
		switch string(c.Path()) {
		case "/":
			c.SetContentType("text/html; charset=utf-8")
			c.WriteString(filesPage)
		case "/result":
			io.Copy(io.Discard, c.BodyReader())
			close(result)
			c.SetStatus(204)
		case "/hold":
			select {
			case <-result:
			case <-time.After(60 * time.Second):
			}
			c.SetStatus(404)
		default:
			fs.ServeGust(c)
		}
	})
	s := start(t, h, Config{Mode: Auto})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--dump-dom", "http://"+s.Addr().String()+"/")
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := filesOut.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no <pre id=\"out\"> in the dumped DOM:\n%s", out)
	}
	got := html.UnescapeString(string(m[1]))
	t.Logf("%s", got)
	want := "range=206:10:bytes 10-19/1000 script=200:" + strconv.Itoa(len(script)) + ":decoded"
	if got != want {
		t.Errorf("page says %q, want %q", got, want)
	}
}
