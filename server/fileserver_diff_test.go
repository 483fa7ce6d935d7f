package server

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileTree writes files of the given sizes (name -> size) under a new
// temporary directory, their bytes a pattern that shows misplaced ranges.
func fileTree(t testing.TB, files map[string]int) string {
	t.Helper()
	dir := t.TempDir()
	for name, size := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, patterned(size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func patterned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz0123456789\n"[(i*7+i/37)%37]
	}
	return b
}

// startFiles serves dir with a FileServer on a test server.
func startFiles(t testing.TB, dir string, opts FileServerOptions, cfg Config) (*Server, *FileServer) {
	t.Helper()
	fs, err := NewFileServer(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return start(t, fs, cfg), fs
}

func plainClient(t testing.TB) *http.Client {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestFileServerMatchesServeContent compares FileServer's answers with
// net/http's ServeContent on the same files for many combinations of
// Range and conditional headers: status, the headers that carry meaning,
// and the body (multipart bodies part by part, boundaries aside).
func TestFileServerMatchesServeContent(t *testing.T) {
	files := map[string]int{"empty.txt": 0, "one.txt": 1, "small.html": 100, "data.bin": 5000}
	dir := fileTree(t, files)
	for mode, cfg := range map[string]Config{"auto": {}, "inline": {Mode: Inline}, "pooled": {Mode: Pooled}} {
		t.Run(mode, func(t *testing.T) {
			s, _ := startFiles(t, dir, FileServerOptions{}, cfg)
			client := plainClient(t)
			for name := range files {
				compareFile(t, client, s, dir, name, files)
			}
		})
	}
}

func compareFile(t *testing.T, client *http.Client, s *Server, dir, name string, files map[string]int) {
	url := "http://" + s.Addr().String() + "/" + name
	first, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, first.Body)
	first.Body.Close()
	etag, lastMod := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	if etag == "" || lastMod == "" {
		t.Fatalf("%s: no validators: %v", name, first.Header)
	}
	mod, _ := http.ParseTime(lastMod)
	before, after := mod.Add(-time.Hour).Format(http.TimeFormat), mod.Add(time.Hour).Format(http.TimeFormat)
	ranges := []string{"", "bytes=0-0", "bytes=0-9", "bytes=5-", "bytes=-5", "bytes=-1000000", "bytes=0-",
		"bytes=0-9,20-29", "bytes=0-0,-1", "bytes= 1-2 , 4-5", "bytes=1000000-", "bytes=9-5", "bytes=abc",
		"bytes=", "bytes=0-1,1000000-2000000", "bytes=0-99999", "bytes=0-4999,0-4999", "bytes=10-20,30-40,50-60"}
	conds := [][2]string{{},
		{"If-None-Match", etag}, {"If-None-Match", "W/" + etag}, {"If-None-Match", `"other"`},
		{"If-None-Match", "*"}, {"If-None-Match", `"other", ` + etag},
		{"If-Modified-Since", lastMod}, {"If-Modified-Since", before}, {"If-Modified-Since", after},
		{"If-Modified-Since", "garbage"},
		{"If-Match", etag}, {"If-Match", `"other"`}, {"If-Match", "*"}, {"If-Match", "W/" + etag},
		{"If-Unmodified-Since", lastMod}, {"If-Unmodified-Since", before},
		{"If-Range", etag}, {"If-Range", `"other"`}, {"If-Range", lastMod}, {"If-Range", before},
		{"If-Range", "W/" + etag}}
	for _, method := range []string{"GET", "HEAD"} {
		for _, rg := range ranges {
			for _, cond := range conds {
				req, _ := http.NewRequest(method, url, nil)
				if rg != "" {
					req.Header.Set("Range", rg)
				}
				if cond[0] != "" {
					req.Header.Set(cond[0], cond[1])
				}
				if files[name] == 0 && (strings.HasPrefix(rg, "bytes=-") || strings.Contains(rg, ",-")) {
					// net/http answers a suffix range of an empty file with a
					// 206 of "bytes 0--1/0"; gust ignores ranges of an empty
					// representation, as net/http does for every other range.
					continue
				}
				label := fmt.Sprintf("%s %s Range=%q %s=%q", method, name, rg, cond[0], cond[1])
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()

				f, err := os.Open(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				rec := httptest.NewRecorder()
				rec.Header().Set("ETag", etag)
				want := httptest.NewRequest(method, "/"+name, nil)
				want.Header = req.Header.Clone()
				http.ServeContent(rec, want, name, mod, f)
				f.Close()
				diffResponse(t, label, resp, body, rec)
			}
		}
	}
}

func diffResponse(t *testing.T, label string, got *http.Response, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	wantBody := rec.Body.Bytes()
	if got.StatusCode != rec.Code {
		t.Errorf("%s: status %d, net/http %d", label, got.StatusCode, rec.Code)
		return
	}
	if got.StatusCode != 416 { // net/http's error answers drop the validators
		if got.Header.Get("ETag") != rec.Header().Get("ETag") {
			t.Errorf("%s: ETag %q, net/http %q", label, got.Header.Get("ETag"), rec.Header().Get("ETag"))
		}
		if got.Header.Get("Last-Modified") != rec.Header().Get("Last-Modified") {
			t.Errorf("%s: Last-Modified %q, net/http %q", label, got.Header.Get("Last-Modified"), rec.Header().Get("Last-Modified"))
		}
	}
	switch got.StatusCode {
	case 304, 412:
		if len(body) != 0 {
			t.Errorf("%s: %d with a body %q", label, got.StatusCode, body)
		}
		return
	case 416:
		if cr := got.Header.Get("Content-Range"); !strings.HasPrefix(cr, "bytes */") {
			t.Errorf("%s: 416 with Content-Range %q", label, cr)
		}
		if want := rec.Header().Get("Content-Range"); want != "" && want != got.Header.Get("Content-Range") {
			t.Errorf("%s: Content-Range %q, net/http %q", label, got.Header.Get("Content-Range"), want)
		}
		return
	}
	for _, h := range []string{"Content-Range", "Accept-Ranges", "Content-Length"} {
		if h == "Content-Length" && strings.HasPrefix(got.Header.Get("Content-Type"), "multipart/") {
			continue // the boundaries differ in length: the bodies are compared below
		}
		if got.Header.Get(h) != rec.Header().Get(h) {
			t.Errorf("%s: %s %q, net/http %q", label, h, got.Header.Get(h), rec.Header().Get(h))
		}
	}
	gotCT, wantCT := got.Header.Get("Content-Type"), rec.Header().Get("Content-Type")
	gotMT, gotParams, _ := mime.ParseMediaType(gotCT)
	wantMT, wantParams, _ := mime.ParseMediaType(wantCT)
	if gotMT != wantMT {
		t.Errorf("%s: Content-Type %q, net/http %q", label, gotCT, wantCT)
		return
	}
	if got.Request.Method == "HEAD" {
		if len(body) != 0 {
			t.Errorf("%s: a body to HEAD", label)
		}
		return
	}
	if gotMT != "multipart/byteranges" {
		if !bytes.Equal(body, wantBody) {
			t.Errorf("%s: body %d bytes %.40q, net/http %d bytes %.40q", label, len(body), body, len(wantBody), wantBody)
		}
		return
	}
	gotParts := readParts(t, label, body, gotParams["boundary"])
	wantParts := readParts(t, label, wantBody, wantParams["boundary"])
	if fmt.Sprint(gotParts) != fmt.Sprint(wantParts) {
		t.Errorf("%s: parts\n%v\nnet/http\n%v", label, gotParts, wantParts)
	}
	// Byte for byte, once the boundaries are the same.
	same := bytes.ReplaceAll(body, []byte(gotParams["boundary"]), []byte("B"))
	if !bytes.Equal(same, bytes.ReplaceAll(wantBody, []byte(wantParams["boundary"]), []byte("B"))) {
		t.Errorf("%s: multipart body\n%q\nnet/http\n%q", label, body, wantBody)
	}
	if got.ContentLength != int64(len(body)) {
		t.Errorf("%s: Content-Length %d for %d bytes", label, got.ContentLength, len(body))
	}
}

func readParts(t *testing.T, label string, body []byte, boundary string) []string {
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	var parts []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return parts
		}
		if err != nil {
			t.Errorf("%s: multipart: %v", label, err)
			return parts
		}
		b, _ := io.ReadAll(p)
		parts = append(parts, p.Header.Get("Content-Range")+" "+p.Header.Get("Content-Type")+" "+string(b))
	}
}
