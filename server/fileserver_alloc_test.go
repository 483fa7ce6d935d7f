package server

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestFileServerHitDoesNotAllocate holds a cached file's answer (whole,
// one range, HEAD, a client offering compression with no siblings; small
// files from the cache's copy, larger ones as file bodies) to zero
// allocations, the sending itself aside.
func TestFileServerHitDoesNotAllocate(t *testing.T) {
	dir := fileTree(t, map[string]int{"f.css": 1000, "big.css": 100 << 10})
	fs, err := NewFileServer(dir, FileServerOptions{CheckInterval: 1 << 62})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	s, ctx := inMemory(t, fs)
	for _, req := range []string{
		"GET /f.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, br\r\n\r\n",
		"GET /f.css HTTP/1.1\r\nHost: x\r\nRange: bytes=10-19\r\n\r\n",
		"HEAD /f.css HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, br\r\n\r\n",
		"GET /big.css HTTP/1.1\r\nHost: x\r\nRange: bytes=10-19\r\nIf-Range: Mon, 02 Jan 2006 15:04:05 GMT\r\n\r\n",
		"GET /big.css HTTP/1.1\r\nHost: x\r\nRange: bytes=-19000\r\n\r\n",
	} {
		raw := []byte(req)
		out := make([]byte, 0, 4096)
		allocs := testing.AllocsPerRun(1000, func() {
			if outcome, _, _ := s.nextRequest(raw, ctx, &reading{}); outcome != gotRequest {
				t.Fatalf("outcome %v", outcome)
			}
			ctx.files = true
			out = s.serve(ctx, out[:0])
			if ctx.file != nil {
				ctx.file.release() // as the connection does once sent
				ctx.file = nil
			}
		})
		if allocs != 0 {
			t.Errorf("%q: %.1f allocations per request, want 0", req, allocs)
		}
	}
}

// BenchmarkFileServerHit measures a cached file's answer, the sending aside.
func BenchmarkFileServerHit(b *testing.B) {
	dir := fileTree(b, map[string]int{"f.css": 1000})
	fs, err := NewFileServer(dir, FileServerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer fs.Close()
	s, ctx := inMemory(b, fs)
	raw := []byte("GET /f.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, br\r\n\r\n")
	out := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.nextRequest(raw, ctx, &reading{})
		ctx.files = true
		out = s.serve(ctx, out[:0])
		ctx.file.release()
		ctx.file = nil
	}
}

// TestAdapterSendsFilesAsFileBodies: through the adapter, net/http's
// FileServer (ServeContent's io.CopyN) and a handler's io.Copy of an
// *os.File give the Ctx a file body (sent with sendfile on plain TCP)
// rather than bytes copied into it.
func TestAdapterSendsFilesAsFileBodies(t *testing.T) {
	dir := fileTree(t, map[string]int{"big.bin": 100 << 10})
	for name, h := range map[string]http.Handler{
		"FileServer": http.FileServer(http.Dir(dir)),
		"io.Copy": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, _ := os.Open(filepath.Join(dir, "big.bin"))
			defer f.Close()
			w.Header().Set("Content-Type", "application/octet-stream")
			io.Copy(w, f)
		}),
	} {
		s, ctx := inMemory(t, HTTPHandler(h))
		raw := []byte("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
		if outcome, _, _ := s.nextRequest(raw, ctx, &reading{}); outcome != gotRequest {
			t.Fatal(outcome)
		}
		ctx.files = true
		ctx.peer = nil
		out := s.serve(ctx, nil)
		if ctx.file == nil || ctx.file.total != 100<<10 || !bytes.Contains(out, []byte("Content-Length: 102400\r\n")) {
			t.Errorf("%s: file body %v, head %.200q", name, ctx.file, out)
		}
		if ctx.file != nil {
			ctx.file.release()
			ctx.file = nil
		}
	}
}
