package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/load"
)

// sent is one request from a Source, copied.
type sent struct {
	request  string
	at       time.Duration
	endpoint string
	head     bool
}

// serialized returns r as HTTP/1.1 sends it: its head, then its body.
func serialized(r *load.SourceRequest) []byte {
	return append(http1.AppendHead(nil, &r.Request), r.Body...)
}

// drain reads every request from src.
func drain(t *testing.T, src *Source) []sent {
	t.Helper()
	var out []sent
	var r load.SourceRequest
	for {
		err := src.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, sent{request: string(serialized(&r)), at: r.At, endpoint: src.Endpoints()[r.Endpoint], head: r.Head})
	}
	return out
}

// clfLine writes a combined log line at second sec after a fixed start.
func clfLine(sec int, method, target string) string {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.FixedZone("", -7*3600)).Add(time.Duration(sec) * time.Second)
	return fmt.Sprintf(`10.0.0.1 - - [%s] "%s %s HTTP/1.1" 200 12 "-" "test-agent"`+"\n",
		at.Format("02/Jan/2006:15:04:05 -0700"), method, target)
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipped(data string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(data))
	w.Close()
	return b.Bytes()
}

func open(t *testing.T, path string, opts Options) *Source {
	t.Helper()
	if opts.Host == "" {
		opts.Host = "target:8080"
	}
	src, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func TestGzipLogsReadLikePlainOnes(t *testing.T) {
	var log strings.Builder
	for i := 0; i < 5000; i++ { // bigger than one read buffer
		log.WriteString(clfLine(i/100, "GET", fmt.Sprintf("/items/%d?page=%d", i, i%7)))
	}
	plain := drain(t, open(t, writeFile(t, "access.log", []byte(log.String())), Options{Timed: true}))
	src := open(t, writeFile(t, "access.log.gz", gzipped(log.String())), Options{Timed: true})
	zipped := drain(t, src)
	if len(plain) != 5000 || len(zipped) != len(plain) {
		t.Fatalf("%d requests from the plain log, %d from the gzip one; want 5000 each", len(plain), len(zipped))
	}
	for i := range plain {
		if plain[i] != zipped[i] {
			t.Fatalf("request %d differs:\n%+v\n%+v", i, plain[i], zipped[i])
		}
	}
	if st := src.Stats(); st.Format != Combined || st.Lines != 5000 || st.Skipped != 0 {
		t.Errorf("stats %+v, want 5000 combined lines", st)
	}
}

func TestBadLinesAreSkippedAndReported(t *testing.T) {
	var log strings.Builder
	var wantLines []int64
	n := int64(0)
	for i := 0; i < 30; i++ {
		n++
		if i%2 == 1 {
			log.WriteString("garbage that is no log line\n")
			wantLines = append(wantLines, n)
			continue
		}
		log.WriteString(clfLine(i, "GET", "/ok"))
	}
	log.WriteString("\n   \n") // blank lines are neither requests nor bad
	src := open(t, writeFile(t, "access.log", []byte(log.String())), Options{})
	got := drain(t, src)
	st := src.Stats()
	if len(got) != 15 || st.Requests != 15 || st.Skipped != 15 || st.Lines != 30 {
		t.Fatalf("%d requests, stats %+v; want 15 requests, 15 skipped of 30 lines", len(got), st)
	}
	if len(st.FirstSkipped) != MaxBadLines {
		t.Fatalf("%d bad lines kept, want the first %d", len(st.FirstSkipped), MaxBadLines)
	}
	for i, b := range st.FirstSkipped {
		if b.Line != wantLines[i] || b.Reason != errNoTime.Error() || b.Text != "garbage that is no log line" {
			t.Errorf("bad line %d = %+v, want line %d", i, b, wantLines[i])
		}
	}
}

func TestLogsWithoutRequestsFailAtOpen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		opts Options
		want string
	}{
		{"a missing file", filepath.Join(dir, "nope.log"), Options{}, "no such file"},
		{"a directory", dir, Options{}, "is a directory"},
		{"an empty file", writeFile(t, "empty.log", nil), Options{}, "is empty"},
		{"only blank lines", writeFile(t, "blank.log", []byte("\n\n  \n")), Options{}, "is empty"},
		{"an empty gzip file", writeFile(t, "empty.log.gz", gzipped("")), Options{}, "is empty"},
		{"nothing parses", writeFile(t, "bad.log", []byte("a\nb\n")), Options{}, "none of its 2 lines could be parsed as common (line 1: no [time] field)"},
		{"JSON that is not ours", writeFile(t, "bad.jsonl", []byte(`{"a":1}`+"\n")), Options{}, `as json (line 1: no "url" or "path")`},
		{"everything filtered out", writeFile(t, "f.log", []byte(clfLine(0, "GET", "/a"))), Options{Methods: []string{"POST"}}, "1 were left out by the filters"},
		{"a corrupt gzip file", writeFile(t, "bad.gz", gzipped(strings.Repeat(clfLine(0, "GET", "/"), 10))[:30]), Options{}, "unexpected EOF"},
		{"combined format asked for common lines", writeFile(t, "c.log", []byte(`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`+"\n")),
			Options{Format: Combined}, "--format common"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Host = "x"
			src, err := Open(tt.path, tt.opts)
			if err == nil {
				src.Close()
				t.Fatal("Open succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %q, want one line mentioning %q", err, tt.want)
			}
		})
	}
}

func TestReadErrorsEndTheLogAndAreKept(t *testing.T) {
	data := gzipped(strings.Repeat(clfLine(0, "GET", "/"), 20000))
	data = data[:len(data)-4] // cut the trailer: the data is there, the check is not
	src := open(t, writeFile(t, "cut.gz", data), Options{})
	var r load.SourceRequest
	n := 0
	var err error
	for err = src.Next(&r); err == nil; err = src.Next(&r) {
		n++
	}
	if err == io.EOF || src.Err() == nil || !strings.Contains(src.Err().Error(), "cut.gz") {
		t.Errorf("after %d requests: err %v, Err() %v; want the read error, naming the file", n, err, src.Err())
	}
	if n != 20000 {
		t.Errorf("%d requests before the error, want all 20000", n)
	}
}

func TestLooping(t *testing.T) {
	path := writeFile(t, "a.log", []byte(clfLine(0, "GET", "/a")+clfLine(0, "GET", "/b")))
	t.Run("without end", func(t *testing.T) {
		src := open(t, path, Options{Passes: -1})
		var r load.SourceRequest
		for i := 0; i < 1000; i++ {
			if err := src.Next(&r); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		}
		if st := src.Stats(); st.Passes < 500 || st.Lines != 2 {
			t.Errorf("stats %+v, want 500 passes over 2 lines", st)
		}
	})
	t.Run("a stream cannot loop", func(t *testing.T) {
		_, err := NewSource(strings.NewReader(clfLine(0, "GET", "/")), "-", Options{Passes: 2})
		if err == nil || !strings.Contains(err.Error(), "file") {
			t.Errorf("err = %v, want one asking for a file", err)
		}
	})
}

// cycle reads the same bytes again and again.
type cycle struct {
	data []byte
	off  int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := copy(p, c.data[c.off:])
	c.off = (c.off + n) % len(c.data)
	return n, nil
}

// benchLog is a combined log excerpt of the kind gust replay is for.
func benchLog() []byte {
	var b bytes.Buffer
	paths := []string{"/", "/api/users/%d", "/api/users/%d/orders?page=2", "/static/app.%d.js", "/api/search?q=term%d&limit=20"}
	for i := 0; i < 1000; i++ {
		method := "GET"
		if i%10 == 3 {
			method = "POST"
		}
		path := paths[i%len(paths)]
		if strings.Contains(path, "%d") {
			path = fmt.Sprintf(path, i*7919%100000)
		}
		fmt.Fprintf(&b, `203.0.113.%d - - [22/Nov/2026:10:%02d:%02d +0000] "%s %s HTTP/1.1" 200 %d "https://example.com/page" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"`+"\n",
			i%250, i/60%60, i%60, method, path, 512+i)
	}
	return b.Bytes()
}

// TestNextDoesNotAllocate holds parsing, filtering, templating and
// serializing a line to zero allocations, timed or not.
func TestNextDoesNotAllocate(t *testing.T) {
	for _, timed := range []bool{false, true} {
		src, err := NewSource(&cycle{data: benchLog()}, "bench", Options{Host: "target:8080", Timed: timed,
			Exclude: []*regexp.Regexp{regexp.MustCompile(`^/nothing`)}})
		if err != nil {
			t.Fatal(err)
		}
		var r load.SourceRequest
		for i := 0; i < 5000; i++ { // grow the buffers
			src.Next(&r)
		}
		allocs := testing.AllocsPerRun(10000, func() {
			if err := src.Next(&r); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("timed %v: Next allocates %.2f times per line, want 0", timed, allocs)
		}
	}
}

// BenchmarkNext measures the per-line path of gust replay before the
// engine: read a combined log line, parse it, filter, find its endpoint and
// serialize the request.
func BenchmarkNext(b *testing.B) {
	for _, timed := range []bool{false, true} {
		b.Run(fmt.Sprintf("timed=%v", timed), func(b *testing.B) {
			log := benchLog()
			src, err := NewSource(&cycle{data: log}, "bench", Options{Host: "target:8080", Timed: timed})
			if err != nil {
				b.Fatal(err)
			}
			var r load.SourceRequest
			b.ReportAllocs()
			b.SetBytes(int64(len(log) / 1000))
			for i := 0; i < b.N; i++ {
				if err := src.Next(&r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplayLoopback is the whole per-line path of gust replay --max:
// read and parse a combined log line, serialize its request, hand it to the
// engine, send it over loopback and record its response for its endpoint.
// The server is a minimal in-process one that allocates nothing per
// request, so allocs/op counts replay's own (setup is spread over b.N).
func BenchmarkReplayLoopback(b *testing.B) {
	addr := cannedServer(b)
	src, err := NewSource(&cycle{data: benchLog()}, "bench", Options{Host: addr})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	res, err := load.Run(context.Background(), load.Config{URL: "http://" + addr + "/", Source: src, Connections: 50, Requests: int64(b.N)})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if res.Requests != int64(b.N) || res.ErrorCount() != 0 {
		b.Fatalf("requests %d errors %v, want %d and none", res.Requests, res.Errors, b.N)
	}
	b.ReportMetric(res.RPS(), "req/s")
}

// cannedServer answers every request with the same small response. The
// benchmark's requests have no bodies, so a blank line ends each one.
func cannedServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	response := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				in := make([]byte, 64<<10)
				out := make([]byte, 0, 64<<10)
				var last uint32
				for {
					n, err := c.Read(in)
					if err != nil {
						return
					}
					out = out[:0]
					for _, ch := range in[:n] {
						if last = last<<8 | uint32(ch); last == 0x0d0a0d0a {
							out = append(out, response...)
						}
					}
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}
