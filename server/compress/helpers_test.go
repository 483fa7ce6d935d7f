package compress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/server"
)

var (
	bigJSON  = hello.JSON(16 << 10) // big enough to compress, small enough for -race
	pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("x"), 8<<10)...)
	preGzip  = gzipped(bigJSON)
)

func gzipped(p []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

// startGust serves h on a loopback port, HTTP/1.1 and h2c, until the test
// ends; it returns the base URL.
func startGust(tb testing.TB, h server.Handler, mode server.Mode) string {
	tb.Helper()
	s := &server.Server{Handler: h, Config: server.Config{Mode: mode, H2C: true, Loops: 1}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-errc
	})
	return "http://" + s.Addr().String()
}

// clients returns an HTTP/1.1 client and an h2c one (prior knowledge);
// neither adds Accept-Encoding nor decodes.
func clients() map[string]*http.Client {
	h1 := &http.Transport{DisableCompression: true}
	h2 := &http.Transport{DisableCompression: true, Protocols: new(http.Protocols)}
	h2.Protocols.SetUnencryptedHTTP2(true)
	return map[string]*http.Client{
		"http1": {Transport: h1, Timeout: 10 * time.Second},
		"h2c":   {Transport: h2, Timeout: 10 * time.Second},
	}
}

// decode undoes a Content-Encoding with the libraries' readers.
func decode(coding string, p []byte) ([]byte, error) {
	r, err := decoder(coding, bytes.NewReader(p))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func decoder(coding string, r io.Reader) (io.Reader, error) {
	switch coding {
	case "", "identity":
		return r, nil
	case "gzip":
		return gzip.NewReader(r)
	case "br":
		return brotli.NewReader(r), nil
	case "zstd":
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	}
	return nil, fmt.Errorf("unknown coding %q", coding)
}

// A response case: what the handler sends, and what the client should see.
type respCase struct {
	path     string
	ctype    string // the handler's Content-Type ("" sets none)
	status   int
	encoding string // a Content-Encoding the handler sets itself
	etag     string
	vary     string // a Vary the handler sets itself
	body     []byte
	compress bool // the response is compressed when the client accepts it
	varies   bool // Vary: Accept-Encoding is expected
}

var respCases = []respCase{
	{path: "/json", ctype: "application/json", body: bigJSON, etag: `"v1"`, compress: true, varies: true},
	{path: "/weak", ctype: "application/json", body: bigJSON, etag: `W/"v1"`, compress: true, varies: true},
	{path: "/text", body: bigJSON, compress: true, varies: true}, // no Content-Type set
	{path: "/vary", ctype: "text/plain", vary: "Origin", body: bigJSON, compress: true, varies: true},
	{path: "/small", ctype: "text/plain", body: []byte("hello, world\n"), varies: true},
	{path: "/png", ctype: "image/png", body: pngBytes},
	{path: "/svg", ctype: "image/svg+xml", body: bytes.Repeat([]byte("<svg/>"), 500), compress: true, varies: true},
	{path: "/pre", ctype: "application/json", encoding: "gzip", body: preGzip},
	{path: "/notmodified", status: 304, etag: `"v1"`},
	{path: "/nocontent", status: 204},
	{path: "/partial", ctype: "text/plain", status: 206, body: bigJSON[:4096]},
	{path: "/notfound", ctype: "text/plain", status: 404, body: bigJSON[:4096], compress: true, varies: true},
}

func findCase(path string) *respCase {
	for i := range respCases {
		if respCases[i].path == path {
			return &respCases[i]
		}
	}
	return nil
}

// nativeCases answers respCases through the native API.
var nativeCases = server.HandlerFunc(func(c *server.Ctx) {
	rc := findCase(string(c.Path()))
	if rc == nil {
		c.SetStatus(404)
		return
	}
	if rc.ctype != "" {
		c.SetContentType(rc.ctype)
	}
	if rc.encoding != "" {
		c.SetHeader("Content-Encoding", rc.encoding)
	}
	if rc.etag != "" {
		c.SetHeader("ETag", rc.etag)
	}
	if rc.vary != "" {
		c.SetHeader("Vary", rc.vary)
	}
	if rc.status != 0 {
		c.SetStatus(rc.status)
	}
	c.Write(rc.body)
})

// netCases answers respCases through net/http.
var netCases = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	rc := findCase(r.URL.Path)
	if rc == nil {
		w.WriteHeader(404)
		return
	}
	h := w.Header()
	if rc.ctype != "" {
		h.Set("Content-Type", rc.ctype)
	}
	if rc.encoding != "" {
		h.Set("Content-Encoding", rc.encoding)
	}
	if rc.etag != "" {
		h.Set("ETag", rc.etag)
	}
	if rc.vary != "" {
		h.Set("Vary", rc.vary)
	}
	if len(rc.body) > 0 && rc.status != 304 && rc.status != 204 {
		h.Set("Content-Length", fmt.Sprint(len(rc.body)))
	}
	if rc.status != 0 {
		w.WriteHeader(rc.status)
	}
	w.Write(rc.body)
})

// checkCases fetches every case with every coding and checks the answer.
func checkCases(t *testing.T, base string, client *http.Client) {
	t.Helper()
	for _, rc := range respCases {
		for _, accept := range []string{"gzip", "br", "zstd", "gzip, deflate, br, zstd", "", "identity", "gzip;q=0"} {
			want := Negotiate([]byte(accept), DefaultOrder).String()
			if !rc.compress || want == "identity" {
				want = rc.encoding
			}
			checkCase(t, base, client, rc, accept, want)
		}
	}
}

func checkCase(t *testing.T, base string, client *http.Client, rc respCase, accept, wantCoding string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+rc.path, nil)
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s (Accept-Encoding %q): %v", rc.path, accept, err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s (Accept-Encoding %q): reading: %v", rc.path, accept, err)
	}
	where := fmt.Sprintf("%s %s (Accept-Encoding %q)", resp.Proto, rc.path, accept)
	got := resp.Header.Get("Content-Encoding")
	if got != wantCoding {
		t.Errorf("%s: Content-Encoding %q, want %q", where, got, wantCoding)
		return
	}
	varies := false
	for _, v := range resp.Header.Values("Vary") {
		varies = varies || hasToken([]byte(v), "accept-encoding")
	}
	if varies != rc.varies && (accept != "" || rc.varies) {
		t.Errorf("%s: Vary %q, want Accept-Encoding in it: %v", where, resp.Header.Values("Vary"), rc.varies)
	}
	if rc.vary != "" && !hasToken([]byte(resp.Header.Get("Vary")), "origin") {
		t.Errorf("%s: the handler's Vary %q lost: %q", where, rc.vary, resp.Header.Values("Vary"))
	}
	if rc.etag != "" && resp.StatusCode != 304 {
		wantTag := rc.etag
		if got != "" && got != rc.encoding && !strings.HasPrefix(rc.etag, "W/") {
			wantTag = "W/" + rc.etag
		}
		if tag := resp.Header.Get("Etag"); tag != wantTag {
			t.Errorf("%s: ETag %q, want %q", where, tag, wantTag)
		}
	}
	if cl := resp.Header.Get("Content-Length"); cl != "" && cl != fmt.Sprint(len(raw)) {
		t.Errorf("%s: Content-Length %s for %d bytes", where, cl, len(raw))
	}
	body := raw
	if got != rc.encoding {
		if body, err = decode(got, raw); err != nil {
			t.Errorf("%s: decoding %s: %v", where, got, err)
			return
		}
	}
	if !bytes.Equal(body, rc.body) {
		t.Errorf("%s: body of %d bytes (%d on the wire), want %d", where, len(body), len(raw), len(rc.body))
	}
	if got != "" && got != rc.encoding && len(raw) >= len(rc.body) {
		t.Errorf("%s: compressed to %d bytes from %d", where, len(raw), len(rc.body))
	}
}
