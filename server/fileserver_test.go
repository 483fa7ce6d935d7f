package server

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileServerRefusesTraversal: paths that leave the root, however
// spelled, and symbolic links out of it, are not served.
func TestFileServerRefusesTraversal(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	dir := fileTree(t, map[string]int{"pub/a.txt": 10, "%2e%2e": 3})
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "pub", "link.txt"))
	os.Symlink(outside, filepath.Join(dir, "pub", "linkdir"))
	os.Symlink("a.txt", filepath.Join(dir, "pub", "inside.txt"))
	s, _ := startFiles(t, dir, FileServerOptions{}, Config{})
	for _, target := range []string{
		"/../secret.txt", "/pub/../../secret.txt", "/%2e%2e/secret.txt", "/pub/%2e%2e/%2e%2e/secret.txt",
		"/%2E%2E/secret.txt", "/pub/..%2fa.txt", "/pub/%2F..%2F..%2Fsecret.txt", "/..%5csecret.txt",
		"/pub\\..\\..\\secret.txt", "/pub/a.txt%00.html", "/pub/link.txt", "/pub/linkdir/secret.txt",
		"/pub/./a.txt", "/pub/a.txt/", "/nothing", "/%zz", "/%2",
	} {
		resp, body := exchange(t, s, "GET "+target+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != 404 && resp.StatusCode != 400 || strings.Contains(body, "secret") {
			t.Errorf("GET %s: %d %q, want 404 (or 400 from the parser)", target, resp.StatusCode, body)
		}
	}
	// Inside the root, all of these are served.
	for target, size := range map[string]int{"/pub/a.txt": 10, "/pub//a.txt": 10, "/pub/inside.txt": 10, "/%252e%252e": 3} {
		resp, body := exchange(t, s, "GET "+target+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != 200 || len(body) != size {
			t.Errorf("GET %s: %d, %d bytes; want 200, %d", target, resp.StatusCode, len(body), size)
		}
	}
}

// TestFileServerDirectories: an index file, a redirect to the
// directory's URL, no listings, and methods other than GET and HEAD.
func TestFileServerDirectories(t *testing.T) {
	dir := fileTree(t, map[string]int{"index.html": 5, "docs/index.html": 7, "empty/x.bin": 1})
	s, _ := startFiles(t, dir, FileServerOptions{}, Config{})
	cases := []struct {
		req, status, header, value string
		size                       int
	}{
		{"GET / HTTP/1.1", "200", "Content-Type", "text/html; charset=utf-8", 5},
		{"GET /docs/ HTTP/1.1", "200", "", "", 7},
		{"GET /docs?x=1 HTTP/1.1", "301", "Location", "/docs/?x=1", -1},
		{"GET /empty/ HTTP/1.1", "404", "", "", -1},
		{"POST /index.html HTTP/1.1\r\nContent-Length: 0", "405", "Allow", "GET, HEAD", -1},
		{"HEAD /docs/index.html HTTP/1.1", "200", "Content-Length", "7", 0},
	}
	for _, c := range cases {
		resp, body := exchange(t, s, c.req+"\r\nHost: x\r\n\r\n")
		if fmt.Sprint(resp.StatusCode) != c.status || c.header != "" && resp.Header.Get(c.header) != c.value || c.size >= 0 && len(body) != c.size {
			t.Errorf("%q: %d %s=%q, %d bytes; want %s %s=%q, %d bytes", c.req, resp.StatusCode, c.header, resp.Header.Get(c.header), len(body), c.status, c.header, c.value, c.size)
		}
	}
}

// TestFileServerPrecompressed: a sibling is chosen by q-value, with
// Content-Encoding and Vary; ranges apply to the encoded bytes.
func TestFileServerPrecompressed(t *testing.T) {
	dir := fileTree(t, map[string]int{"app.js": 1000, "app.js.br": 100, "app.js.gz": 200, "plain.css": 50})
	s, _ := startFiles(t, dir, FileServerOptions{}, Config{})
	cases := []struct {
		ae, rng    string
		status     int
		encoding   string
		size       int
		vary       bool
		contentRng string
	}{
		{"", "", 200, "", 1000, true, ""},
		{"gzip, br", "", 200, "br", 100, true, ""},
		{"gzip;q=1, br;q=0.5", "", 200, "gzip", 200, true, ""},
		{"br;q=0, gzip;q=0", "", 200, "", 1000, true, ""},
		{"zstd", "", 200, "", 1000, true, ""},
		{"*", "", 200, "br", 100, true, ""},
		{"*;q=0.1, gzip;q=0.2", "", 200, "gzip", 200, true, ""},
		{"x-gzip", "", 200, "gzip", 200, true, ""},
		{"br", "bytes=0-9", 206, "br", 10, true, "bytes 0-9/100"},
		{"gzip, br", "", 200, "br", 100, true, ""},
	}
	for _, c := range cases {
		req := "GET /app.js HTTP/1.1\r\nHost: x\r\n"
		if c.ae != "" {
			req += "Accept-Encoding: " + c.ae + "\r\n"
		}
		if c.rng != "" {
			req += "Range: " + c.rng + "\r\n"
		}
		resp, body := exchange(t, s, req+"\r\n")
		if resp.StatusCode != c.status || resp.Header.Get("Content-Encoding") != c.encoding || len(body) != c.size ||
			(resp.Header.Get("Vary") == "Accept-Encoding") != c.vary || resp.Header.Get("Content-Range") != c.contentRng ||
			resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("Accept-Encoding %q Range %q: %d %q %d bytes Vary %q Content-Range %q Content-Type %q", c.ae, c.rng,
				resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), resp.Header.Get("Vary"),
				resp.Header.Get("Content-Range"), resp.Header.Get("Content-Type"))
		}
	}
	resp, _ := exchange(t, s, "GET /plain.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
	if resp.Header.Get("Vary") != "" || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("a file without siblings: Vary %q, Content-Encoding %q", resp.Header.Get("Vary"), resp.Header.Get("Content-Encoding"))
	}
}

// TestFileServerSeesChanges: the cache notices a file changed, grew or
// was replaced once its check interval has passed.
func TestFileServerSeesChanges(t *testing.T) {
	dir := fileTree(t, map[string]int{"f.txt": 10})
	s, _ := startFiles(t, dir, FileServerOptions{CheckInterval: 50 * time.Millisecond}, Config{})
	get := func() string {
		_, body := exchange(t, s, "GET /f.txt HTTP/1.1\r\nHost: x\r\n\r\n")
		return body
	}
	if len(get()) != 10 {
		t.Fatal("first GET")
	}
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p+".new", []byte("replaced, longer"), 0o644)
	os.Rename(p+".new", p)
	time.Sleep(100 * time.Millisecond)
	if b := get(); b != "replaced, longer" {
		t.Errorf("after a replace: %q", b)
	}
	os.Remove(p)
	time.Sleep(100 * time.Millisecond)
	if resp, _ := exchange(t, s, "GET /f.txt HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 404 {
		t.Errorf("after a remove: %d", resp.StatusCode)
	}
	os.WriteFile(p, []byte("back"), 0o644)
	time.Sleep(100 * time.Millisecond)
	if b := get(); b != "back" {
		t.Errorf("after it came back: %q", b)
	}
}

// TestFileServerOverEveryPath fetches a large file and a multi-range one
// over plain TCP in each mode, over TLS (read and sealed), over h2c
// (read into the stream's body) and through the adapter's ReadFrom
// (net/http's FileServer), with pipelined requests after a file.
func TestFileServerOverEveryPath(t *testing.T) {
	const big = 3<<20 + 12345
	dir := fileTree(t, map[string]int{"big.bin": big, "small.txt": 300})
	want := patterned(big)
	check := func(t *testing.T, client *http.Client, base string) {
		t.Helper()
		for i := 0; i < 2; i++ {
			resp, err := client.Get(base + "/big.bin")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !bytes.Equal(body, want) {
				t.Fatalf("GET /big.bin: %d, %d bytes, %v", resp.StatusCode, len(body), err)
			}
		}
		req, _ := http.NewRequest("GET", base+"/big.bin", nil)
		req.Header.Set("Range", "bytes=1-2,3000000-3000009")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 206 || !bytes.Contains(body, want[3000000:3000010]) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") {
			t.Errorf("two ranges: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	for mode, cfg := range map[string]Config{"inline": {Mode: Inline}, "pooled": {Mode: Pooled}, "auto": {}} {
		t.Run("plain/"+mode, func(t *testing.T) {
			s, _ := startFiles(t, dir, FileServerOptions{}, cfg)
			check(t, plainClient(t), "http://"+s.Addr().String())
			pipelined(t, s, want)
		})
	}
	t.Run("tls", func(t *testing.T) {
		fs, _ := NewFileServer(dir, FileServerOptions{})
		defer fs.Close()
		s := startTLS(t, fs, Config{})
		check(t, tlsHTTPClient(t, tls.VersionTLS13), "https://localhost:"+portOf(s))
		check(t, tlsHTTPClient(t, tls.VersionTLS12), "https://localhost:"+portOf(s))
	})
	t.Run("h2c", func(t *testing.T) {
		s, _ := startFiles(t, dir, FileServerOptions{}, Config{H2C: true})
		var protos http.Protocols
		protos.SetUnencryptedHTTP2(true)
		tr := &http.Transport{Protocols: &protos}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get("http://" + s.Addr().String() + "/small.txt")
		if err != nil || resp.ProtoMajor != 2 {
			t.Fatalf("h2c: %v %v", resp, err)
		}
		resp.Body.Close()
		check(t, &http.Client{Transport: tr, Timeout: 10 * time.Second}, "http://"+s.Addr().String())
	})
	t.Run("adapter", func(t *testing.T) {
		s := start(t, HTTPHandler(http.FileServer(http.Dir(dir))), Config{})
		check(t, plainClient(t), "http://"+s.Addr().String())
		pipelined(t, s, want)
	})
}

func portOf(s *Server) string {
	_, port, _ := net.SplitHostPort(s.Addr().String())
	return port
}

// pipelined sends three requests at once, a file between two others, and
// reads the three answers in order.
func pipelined(t *testing.T, s *Server, want []byte) {
	t.Helper()
	c, r := rawConn(t, s)
	io.WriteString(c, "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /big.bin HTTP/1.1\r\nHost: x\r\n\r\nHEAD /small.txt HTTP/1.1\r\nHost: x\r\n\r\n")
	for i, wantLen := range []int{300, len(want), 0} {
		req := &http.Request{Method: "GET"}
		if i == 2 {
			req.Method = "HEAD"
		}
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			t.Fatalf("pipelined response %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || len(body) != wantLen || i == 1 && !bytes.Equal(body, want) {
			t.Fatalf("pipelined response %d: %d bytes, %v", i, len(body), err)
		}
	}
}

// TestFileSendDoesNotStallTheLoop: a client that reads 64 KiB of a 10 MiB
// file and stops holds no loop: on a single loop, other clients are
// served meanwhile, and the stalled one is closed after WriteTimeout.
func TestFileSendDoesNotStallTheLoop(t *testing.T) {
	dir := fileTree(t, map[string]int{"ten.bin": 10 << 20, "small.txt": 100})
	for mode, cfg := range map[string]Config{"inline": {Mode: Inline, Loops: 1}, "auto": {Loops: 1}} {
		t.Run(mode, func(t *testing.T) {
			cfg.WriteTimeout = 2 * time.Second
			s, _ := startFiles(t, dir, FileServerOptions{}, cfg)
			stalled, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer stalled.Close()
			stalled.(*net.TCPConn).SetReadBuffer(64 << 10)
			io.WriteString(stalled, "GET /ten.bin HTTP/1.1\r\nHost: x\r\n\r\n")
			io.ReadFull(stalled, make([]byte, 64<<10))
			start := time.Now()
			client := plainClient(t)
			for i := 0; i < 50; i++ {
				resp, err := client.Get("http://" + s.Addr().String() + "/small.txt")
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("50 requests beside a stalled download took %v", d)
			}
			// The stalled client is cut off after WriteTimeout without progress.
			stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
			time.Sleep(3 * time.Second)
			n, err := io.Copy(io.Discard, stalled)
			if err != nil && !strings.Contains(err.Error(), "reset") || n >= 10<<20 {
				t.Errorf("the stalled client: read %d more bytes, %v; want the connection closed short", n, err)
			}
		})
	}
}

// TestFileTruncatedWhileSent: a file cut short while its response is on
// the way ends that connection, and the server goes on.
func TestFileTruncatedWhileSent(t *testing.T) {
	dir := fileTree(t, map[string]int{"shrinks.bin": 8 << 20, "small.txt": 100})
	for mode, cfg := range map[string]Config{"inline": {Mode: Inline, Loops: 1}, "pooled": {Mode: Pooled, Loops: 1}} {
		t.Run(mode, func(t *testing.T) {
			p := filepath.Join(dir, "shrinks.bin")
			os.WriteFile(p, patterned(8<<20), 0o644)
			s, _ := startFiles(t, dir, FileServerOptions{}, cfg)
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.(*net.TCPConn).SetReadBuffer(64 << 10)
			io.WriteString(c, "GET /shrinks.bin HTTP/1.1\r\nHost: x\r\n\r\n")
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadFull(resp.Body, make([]byte, 100<<10))
			if err := os.Truncate(p, 1<<20); err != nil {
				t.Fatal(err)
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, err := io.Copy(io.Discard, resp.Body)
			if err == nil || n+100<<10 >= 8<<20 {
				t.Errorf("after truncation: read %d more bytes, %v; want the connection closed early", n, err)
			}
			resp2, body := exchange(t, s, "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp2.StatusCode != 200 || len(body) != 100 {
				t.Errorf("the next client: %d, %d bytes", resp2.StatusCode, len(body))
			}
		})
	}
}

// TestSendFileRange: the native API's raw form, and SendFile of a path.
func TestSendFileRange(t *testing.T) {
	dir := fileTree(t, map[string]int{"f.txt": 1000})
	p := filepath.Join(dir, "f.txt")
	s := start(t, HandlerFunc(func(c *Ctx) {
		if string(c.Path()) == "/raw" {
			f, err := os.Open(p)
			if err != nil {
				c.SetStatus(500)
				return
			}
			defer f.Close()
			c.SetContentType("application/octet-stream")
			c.SendFileRange(f, 100, 50)
			return
		}
		c.SendFile(p)
	}), Config{})
	resp, body := exchange(t, s, "GET /raw HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 200 || body != string(patterned(1000)[100:150]) {
		t.Errorf("SendFileRange: %d %q", resp.StatusCode, body)
	}
	resp, body = exchange(t, s, "GET /any HTTP/1.1\r\nHost: x\r\nRange: bytes=-10\r\n\r\n")
	if resp.StatusCode != 206 || body != string(patterned(1000)[990:]) || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("SendFile with a range: %d %q %q", resp.StatusCode, body, resp.Header.Get("Content-Type"))
	}
}

// TestSendFileThenFlushOrWrite: a file body followed by Write, or
// streamed with Flush, keeps its bytes in order.
func TestSendFileThenFlushOrWrite(t *testing.T) {
	dir := fileTree(t, map[string]int{"f.txt": 40 << 10})
	p := filepath.Join(dir, "f.txt")
	want := string(patterned(40 << 10))
	s := start(t, HandlerFunc(func(c *Ctx) {
		f, err := os.Open(p)
		if err != nil {
			c.SetStatus(500)
			return
		}
		defer f.Close()
		c.SendFileRange(f, 0, -1)
		if string(c.Path()) == "/flush" {
			c.Flush()
		}
		c.WriteString("<end>")
	}), Config{Mode: Pooled})
	for _, path := range []string{"/write", "/flush"} {
		resp, body := exchange(t, s, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != 200 || body != want+"<end>" {
			t.Errorf("%s: %d, %d bytes, ends %q", path, resp.StatusCode, len(body), body[max(0, len(body)-10):])
		}
	}
}
