package compare

import (
	"context"
	"net/http"
	"testing"

	"github.com/klauspost/compress/gzhttp"
	"github.com/valyala/fasthttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/server"
	"github.com/gust-http/gust/server/compress"
)

// compressedJSON is the body of the compression benchmark: 100 KiB of
// JSON, as gust bench's compression cells send.
var compressedJSON = hello.JSON(100 << 10)

// compressPeers answer compressedJSON gzipped at level 5: gust through
// server/compress (native and adapter), net/http through gzhttp and
// through server/compress's middleware, fasthttp through its own
// CompressHandlerBrotliLevel.
var compressPeers = func() []peer {
	z := compress.New(compress.Config{GzipLevel: 5})
	native := server.HandlerFunc(func(c *server.Ctx) {
		c.SetContentType("application/json")
		c.Write(compressedJSON)
	})
	netJSON := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(compressedJSON)
	})
	gz, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(5))
	if err != nil {
		panic(err)
	}
	startNet := func(tb testing.TB, h http.Handler) string {
		ln := listen(tb)
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		tb.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String() + "/"
	}
	return []peer{
		{"gust-native", func(tb testing.TB) string { return startGust(tb, z.Handler(native), server.Pooled) }},
		{"gust-native-inline", func(tb testing.TB) string { return startGust(tb, z.Handler(native), server.Inline) }},
		{"gust-adapter", func(tb testing.TB) string {
			return startGust(tb, server.HTTPHandler(z.Middleware(netJSON)), server.Pooled)
		}},
		{"nethttp-gzhttp", func(tb testing.TB) string { return startNet(tb, gz(netJSON)) }},
		{"nethttp-compress", func(tb testing.TB) string { return startNet(tb, z.Middleware(netJSON)) }},
		{"fasthttp", func(tb testing.TB) string {
			ln := listen(tb)
			srv := &fasthttp.Server{Handler: fasthttp.CompressHandlerBrotliLevel(func(ctx *fasthttp.RequestCtx) {
				ctx.SetContentType("application/json")
				ctx.Write(compressedJSON)
			}, 4, 5)}
			go srv.Serve(ln)
			tb.Cleanup(func() { srv.Shutdown() })
			return "http://" + ln.Addr().String() + "/"
		}},
	}
}()

// BenchmarkCompressedJSON drives each peer with gust's load generator in
// the same process, 8 keep-alive connections asking for gzip: ns/op is
// one compressed 100 KiB response on both sides together, allocs/op
// counts both (the generator allocates nothing per request).
func BenchmarkCompressedJSON(b *testing.B) {
	header := [][2]string{{"Accept-Encoding", "gzip"}}
	for _, p := range compressPeers {
		b.Run(p.name, func(b *testing.B) {
			url := p.start(b)
			checkGzip(b, url)
			cfg := load.Config{URL: url, Connections: 8, Requests: 200, Header: header}
			if _, err := load.Run(context.Background(), cfg); err != nil { // warm the pools
				b.Fatal(err)
			}
			cfg.Requests = int64(b.N)
			b.SetBytes(int64(len(compressedJSON)))
			b.ReportAllocs()
			b.ResetTimer()
			res, err := load.Run(context.Background(), cfg)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if res.Requests != int64(b.N) || res.ErrorCount() != 0 {
				b.Fatalf("%d responses, errors %v", res.Requests, res.Errors)
			}
		})
	}
}

// checkGzip fails unless url answers gzip when asked.
func checkGzip(tb testing.TB, url string) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		tb.Fatalf("%s answered Content-Encoding %q, want gzip", url, ce)
	}
}
