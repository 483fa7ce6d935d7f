package compress

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/server"
)

// roundTripper sends one request over a raw keep-alive connection and
// reads its response, whose length it learnt from the first: the client
// allocates nothing, so allocations counted are the server's.
type roundTripper struct {
	c    net.Conn
	req  []byte
	resp []byte
}

func newRoundTripper(tb testing.TB, base, path, accept string) *roundTripper {
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	rt := &roundTripper{c: c, req: []byte("GET " + path + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: " + accept + "\r\n\r\n")}
	// The first response: read until the connection has been quiet 200 ms.
	if _, err := c.Write(rt.req); err != nil {
		tb.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	n := 0
	for {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		m, err := c.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	c.SetReadDeadline(time.Time{})
	if n == 0 {
		tb.Fatal("no response")
	}
	rt.resp = buf[:n]
	return rt
}

func (rt *roundTripper) do(tb testing.TB) {
	if _, err := rt.c.Write(rt.req); err != nil {
		tb.Fatal(err)
	}
	if _, err := io.ReadFull(rt.c, rt.resp); err != nil {
		tb.Fatal(err)
	}
}

// TestNativeZeroAllocs holds a compressed native response, in steady
// state, to no allocation.
func TestNativeZeroAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("short, or the race detector (its sync.Pool drops items at random)")
	}
	z := New(Config{})
	base := startGust(t, z.Handler(nativeBench), server.Inline)
	for _, accept := range []string{"gzip", "br", "zstd"} {
		rt := newRoundTripper(t, base, "/", accept)
		for range 20 {
			rt.do(t) // warm the pools
		}
		if n := testing.AllocsPerRun(100, func() { rt.do(t) }); n != 0 {
			t.Errorf("%s: %v allocations per response, want 0", accept, n)
		}
	}
}

// BenchmarkNative measures a 100 KiB JSON response through Handler on
// gust's native API, per coding, over loopback (the raw client included
// in the time, allocating nothing).
func BenchmarkNative(b *testing.B) {
	z := New(Config{})
	base := startGust(b, z.Handler(nativeBench), server.Inline)
	benchCodings(b, base)
}

// BenchmarkMiddleware measures the same response through Middleware on
// gust's adapter and on net/http, and through klauspost's gzhttp (the
// common net/http gzip middleware) on net/http, for comparison; the
// -without rows are the servers without any middleware, for the
// allocations the middleware adds.
func BenchmarkMiddleware(b *testing.B) {
	z := New(Config{})
	b.Run("gust-adapter", func(b *testing.B) {
		benchCodings(b, startGust(b, server.HTTPHandler(z.Middleware(netBench)), server.Auto))
	})
	b.Run("gust-adapter-without", func(b *testing.B) {
		benchOne(b, startGust(b, server.HTTPHandler(netBench), server.Auto), "identity")
	})
	b.Run("nethttp-without", func(b *testing.B) {
		benchOne(b, startNetHTTP(b, netBench), "identity")
	})
	b.Run("nethttp", func(b *testing.B) {
		benchCodings(b, startNetHTTP(b, z.Middleware(netBench)))
	})
	b.Run("nethttp-gzhttp", func(b *testing.B) {
		base := startNetHTTP(b, gzhttp.GzipHandler(netBench))
		b.Run("gzip", func(b *testing.B) { benchOne(b, base, "gzip") })
	})
}

func benchCodings(b *testing.B, base string) {
	for _, accept := range []string{"gzip", "br", "zstd", "identity"} {
		b.Run(accept, func(b *testing.B) { benchOne(b, base, accept) })
	}
}

func benchOne(b *testing.B, base, accept string) {
	rt := newRoundTripper(b, base, "/", accept)
	b.SetBytes(int64(len(benchJSON)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rt.do(b)
	}
}

// benchJSON is the benchmarks' body: 100 KiB of JSON, as gust bench's
// compression cells send.
var benchJSON = hello.JSON(100 << 10)

// nativeBench and netBench answer benchJSON, natively and through net/http.
var (
	nativeBench = server.HandlerFunc(func(c *server.Ctx) {
		c.SetContentType("application/json")
		c.Write(benchJSON)
	})
	netBench = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		w.Write(benchJSON)
	})
)
