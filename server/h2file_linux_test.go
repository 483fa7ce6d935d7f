//go:build linux

package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
)

// File bodies over HTTP/2 (h2file_linux.go): read a piece at a time as the
// windows allow, byte-exact whole, in ranges and in multipart ranges, on
// h2c and h2 over TLS, in each mode.

const (
	h2BigFile = 10 << 20
	h2OddFile = 3<<20 + 1
)

// h2FileSetup is a file server over HTTP/2 and a net/http client for it.
type h2FileSetup struct {
	s      *Server
	fs     *FileServer
	dir    string
	base   string
	client *http.Client
}

// startH2Files serves big.bin (10 MiB) and odd.bin (3 MiB + 1) over h2c
// or h2 (TLS): the FileServer, and /sendfile/NAME through
// Ctx.SendFileRange from byte 10 and /flushfile/NAME flushing "head;"
// before Ctx.SendFile.
func startH2Files(t testing.TB, overTLS bool, mode Mode) *h2FileSetup {
	t.Helper()
	return startH2FilesWith(t, overTLS, mode, nil)
}

// startH2FilesWith is startH2Files with another handler for the
// directory, if with is not nil.
func startH2FilesWith(t testing.TB, overTLS bool, mode Mode, with func(dir string) Handler) *h2FileSetup {
	t.Helper()
	dir := fileTree(t, map[string]int{"big.bin": h2BigFile, "odd.bin": h2OddFile, "trunc.bin": 1 << 20})
	fs, err := NewFileServer(dir, FileServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	var h Handler = HandlerFunc(func(c *Ctx) {
		p := string(c.Path())
		switch {
		case len(p) > 10 && p[:10] == "/sendfile/":
			f, err := os.Open(filepath.Join(dir, p[10:]))
			if err != nil {
				c.SetStatus(404)
				return
			}
			defer f.Close() // the server holds a duplicate
			c.SetContentType("application/octet-stream")
			if err := c.SendFileRange(f, 10, -1); err != nil {
				c.SetStatus(500)
			}
		case p == "/mem":
			c.Write(patterned(h2OddFile)) // an in-memory body, for comparison
		case len(p) > 11 && p[:11] == "/flushfile/":
			c.WriteString("head;")
			c.Flush()
			c.SendFile(filepath.Join(dir, p[11:]))
		default:
			fs.ServeGust(c)
		}
	})
	if with != nil {
		h = with(dir)
	}
	// One loop: every connection shares it, so one that stalls would show.
	cfg := Config{Mode: mode, Loops: 1, H2C: !overTLS, ErrorLog: discardLog(), WriteTimeout: 20 * time.Second}
	tr := &http.Transport{DisableCompression: true}
	scheme := "http"
	var s *Server
	if overTLS {
		cfg.HTTP2.OverTLS = true
		s = startTLS(t, h, cfg)
		tr.TLSClientConfig = clientTLS(0)
		tr.TLSClientConfig.NextProtos = []string{"h2"}
		tr.ForceAttemptHTTP2 = true
		scheme = "https"
	} else {
		s = start(t, h, cfg)
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetUnencryptedHTTP2(true)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &h2FileSetup{s: s, fs: fs, dir: dir, base: scheme + "://" + s.Addr().String(),
		client: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// get fetches path with the request headers given (name, value, ...).
func (fx *h2FileSetup) get(t *testing.T, method, path string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, fx.base+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := fx.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	if resp.ProtoMajor != 2 {
		t.Fatalf("%s %s: answered over %s, want HTTP/2", method, path, resp.Proto)
	}
	return resp, body
}

// refs is the number of references to the cached file name: 1 (the
// cache's own) once no response holds it.
func (fx *h2FileSetup) refs(name string) int32 {
	e := fx.fs.cache.Peek(name)
	if e == nil || e.File == nil {
		return -1
	}
	return e.File.Refs()
}

// waitRefs waits until name's cache entry is held by the cache alone.
func (fx *h2FileSetup) waitRefs(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for fx.refs(name) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%s still has %d references, want the cache's 1", name, fx.refs(name))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// h2Transports are HTTP/2 with prior knowledge and over TLS.
var h2Transports = []struct {
	name    string
	overTLS bool
}{{"h2c", false}, {"h2", true}}

func TestH2FileBodies(t *testing.T) {
	big, odd := patterned(h2BigFile), patterned(h2OddFile)
	for _, tr := range h2Transports {
		for _, mode := range []Mode{Inline, Pooled, Auto} {
			t.Run(fmt.Sprintf("%s/%v", tr.name, mode), func(t *testing.T) {
				fx := startH2Files(t, tr.overTLS, mode)
				for _, tt := range []struct {
					name, method, path, rng string
					status                  int
					want                    []byte
				}{
					{"10 MiB", "GET", "/big.bin", "", 200, big},
					{"3 MiB+1", "GET", "/odd.bin", "", 200, odd},
					{"range", "GET", "/odd.bin", "bytes=1000-2999999", 206, odd[1000:3000000]},
					{"last byte", "GET", "/odd.bin", "bytes=-1", 206, odd[h2OddFile-1:]},
					{"open range", "GET", "/big.bin", "bytes=9437184-", 206, big[9437184:]},
					{"HEAD", "HEAD", "/big.bin", "", 200, nil},
					{"SendFileRange", "GET", "/sendfile/odd.bin", "", 200, odd[10:]},
				} {
					t.Run(tt.name, func(t *testing.T) {
						var hdr []string
						if tt.rng != "" {
							hdr = []string{"Range", tt.rng}
						}
						resp, body := fx.get(t, tt.method, tt.path, hdr...)
						if resp.StatusCode != tt.status || !bytes.Equal(body, tt.want) {
							t.Fatalf("%d, %d bytes; want %d, %d bytes (equal: %v)", resp.StatusCode, len(body), tt.status, len(tt.want), bytes.Equal(body, tt.want))
						}
						wantLen := int64(len(tt.want))
						if tt.method == "HEAD" {
							wantLen = h2BigFile
						}
						if resp.ContentLength != wantLen {
							t.Errorf("Content-Length %d, want %d", resp.ContentLength, wantLen)
						}
					})
				}
				t.Run("multi-range", func(t *testing.T) {
					ranges := [][2]int{{0, 99}, {1 << 20, 3 << 20}, {h2BigFile - 70000, h2BigFile - 1}}
					resp, body := fx.get(t, "GET", "/big.bin", "Range", "bytes=0-99,1048576-3145728,10415760-10485759")
					checkByteranges(t, resp, body, big, ranges)
				})
				if mode != Inline {
					t.Run("Flush then SendFile", func(t *testing.T) {
						_, body := fx.get(t, "GET", "/flushfile/odd.bin")
						if !bytes.Equal(body, append([]byte("head;"), odd...)) {
							t.Fatalf("%d bytes, want head; and the %d of odd.bin", len(body), h2OddFile)
						}
					})
				}
				fx.waitRefs(t, "big.bin")
				fx.waitRefs(t, "odd.bin")
			})
		}
	}
}

// checkByteranges checks a multipart/byteranges answer part by part.
func checkByteranges(t *testing.T, resp *http.Response, body, file []byte, ranges [][2]int) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != 206 || err != nil || mt != "multipart/byteranges" {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp.ContentLength != int64(len(body)) {
		t.Errorf("Content-Length %d, body %d bytes", resp.ContentLength, len(body))
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for i, r := range ranges {
		part, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		got, _ := io.ReadAll(part)
		wantCR := fmt.Sprintf("bytes %d-%d/%d", r[0], r[1], len(file))
		if cr := part.Header.Get("Content-Range"); cr != wantCR || !bytes.Equal(got, file[r[0]:r[1]+1]) {
			t.Errorf("part %d: %q, %d bytes; want %q, %d bytes", i, cr, len(got), wantCR, r[1]+1-r[0])
		}
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Errorf("after the parts: %v, want io.EOF", err)
	}
}

// TestH2FileManyStreams: streams of large files at once on one
// connection, which the connection's window shares out, all complete.
func TestH2FileManyStreams(t *testing.T) {
	odd := patterned(h2OddFile)
	for _, tr := range h2Transports {
		t.Run(tr.name, func(t *testing.T) {
			fx := startH2Files(t, tr.overTLS, Auto)
			fx.get(t, "GET", "/") // one connection, then every stream on it
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for i := range 16 {
				wg.Go(func() {
					path := "/odd.bin"
					if i%4 == 3 {
						path = "/sendfile/odd.bin"
					}
					resp, err := fx.client.Get(fx.base + path)
					if err != nil {
						errs <- err
						return
					}
					defer resp.Body.Close()
					body, err := io.ReadAll(resp.Body)
					want := odd
					if i%4 == 3 {
						want = odd[10:]
					}
					if err != nil || !bytes.Equal(body, want) {
						errs <- fmt.Errorf("stream %d: %d bytes, %v", i, len(body), err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			fx.waitRefs(t, "odd.bin")
		})
	}
}

// TestH2FileWithCurl: curl (nghttp2) fetches a large file, a large
// in-memory body and a range over h2c and h2.
func TestH2FileWithCurl(t *testing.T) {
	needClient(t, []string{"curl"})
	odd := patterned(h2OddFile)
	for _, tr := range h2Transports {
		t.Run(tr.name, func(t *testing.T) {
			fx := startH2Files(t, tr.overTLS, Auto)
			curl := func(args ...string) []byte {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				proto := "--http2-prior-knowledge"
				if tr.overTLS {
					proto = "--http2"
				}
				args = append([]string{"-sS", "-k", proto, "-w", "|%{http_version}"}, args...)
				out, err := exec.CommandContext(ctx, "curl", args...).Output()
				if err != nil {
					t.Fatalf("curl %v: %v", args, err)
				}
				i := bytes.LastIndexByte(out, '|')
				if i < 0 || string(out[i+1:]) != "2" {
					t.Fatalf("curl did not speak HTTP/2: %q", out[max(0, len(out)-20):])
				}
				body := out[:i]
				return body
			}
			if got := curl(fx.base + "/odd.bin"); !bytes.Equal(got, odd) {
				t.Errorf("whole file: %d bytes", len(got))
			}
			// An in-memory body past the connection's output bound: curl's
			// windows are large enough that it sends no WINDOW_UPDATE.
			if got := curl(fx.base + "/mem"); !bytes.Equal(got, odd) {
				t.Errorf("in-memory body: %d bytes", len(got))
			}
			if got := curl("-r", "12345-2345678", fx.base+"/odd.bin"); !bytes.Equal(got, odd[12345:2345679]) {
				t.Errorf("range: %d bytes", len(got))
			}
		})
	}
}

// TestH2FileAdapter: net/http's FileServer through the adapter on a
// stream, whose copy of the file (ReadFrom) becomes the stream's file
// body: whole and in ranges, and the handler done before the client has
// read.
func TestH2FileAdapter(t *testing.T) {
	big := patterned(h2BigFile)
	for _, tr := range h2Transports {
		for _, mode := range []Mode{Pooled, Auto} {
			t.Run(fmt.Sprintf("%s/%v", tr.name, mode), func(t *testing.T) {
				fx := startH2FilesWith(t, tr.overTLS, mode, func(dir string) Handler {
					return HTTPHandler(http.FileServer(http.Dir(dir)))
				})
				if _, body := fx.get(t, "GET", "/big.bin"); !bytes.Equal(body, big) {
					t.Errorf("10 MiB: %d bytes, not the file's", len(body))
				}
				if resp, body := fx.get(t, "GET", "/big.bin", "Range", "bytes=5-1048580"); resp.StatusCode != 206 || !bytes.Equal(body, big[5:1048581]) {
					t.Errorf("range: %d, %d bytes", resp.StatusCode, len(body))
				}
				resp, body := fx.get(t, "GET", "/big.bin", "Range", "bytes=0-99,1048576-3145728")
				checkByteranges(t, resp, body, big, [][2]int{{0, 99}, {1 << 20, 3 << 20}})
				if tr.overTLS {
					return
				}
				// ReadFrom handed the file to the loop: the handler is done
				// while a client that takes 1 KiB holds its stream.
				p := dialH2(t, fx.s, xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 1024})
				p.get(1, "/big.bin")
				p.readData(t, 1, 1024)
				deadline := time.Now().Add(5 * time.Second)
				for fx.s.counters.inflight.Load() != 0 {
					if time.Now().After(deadline) {
						t.Fatalf("%d handlers still running while the client does not read", fx.s.counters.inflight.Load())
					}
					time.Sleep(10 * time.Millisecond)
				}
			})
		}
	}
}
