// Command fasthttp is the fasthttp peer: it answers "Hello, Go!"
// (text/plain) on every path and method, so gust can be measured against
// fasthttp's worker-pool design.
//
// Flags: -addr (default 127.0.0.1:8081), -delay (wait before answering),
// -debug-addr (a net/http listener with expvar and pprof), and -tls-cert
// FILE -tls-key FILE or -tls-self-signed to serve HTTP/1.1 over crypto/tls
// (ALPN http/1.1), and -root DIR to serve the files under DIR with
// fasthttp.FS instead (gust bench's file scenarios). SIGINT or SIGTERM
// shut it down within 5 s.
//
// For gust bench's compression cells, -compress compresses answers with
// fasthttp.CompressHandlerBrotliLevel (br at 4, gzip at 5), and
// -body-json N answers N bytes of hello.JSON instead of the greeting.
//
// fasthttp does not tell a handler when its client leaves (RequestCtx.Done
// closes only on server shutdown), so -delay is cut short by shutdown alone.
package main

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

var body = []byte(hello.Text)

var (
	compressFlag = flag.Bool("compress", false, "compress answers with fasthttp.CompressHandlerBrotliLevel: br at 4, gzip at 5 (gust serve --compress's levels)")
	bodyJSON     = flag.Int("body-json", 0, "answer with this many bytes of JSON (hello.JSON, application/json) instead of Hello, Go!")
	rootFlag     = flag.String("root", "", "serve the files under this directory (fasthttp.FS) instead of Hello, Go!")
)

func main() { peer.Main("fasthttp", "127.0.0.1:8081", run) }

func run(f peer.Flags) error {
	ln, dbg, err := listen(f)
	if err != nil {
		return err
	}
	h := answer(f.Delay, "text/plain; charset=utf-8", body)
	if *bodyJSON > 0 {
		h = answer(f.Delay, "application/json", hello.JSON(*bodyJSON))
	}
	if *compressFlag {
		h = fasthttp.CompressHandlerBrotliLevel(h, 4, 5)
	}
	srv := &fasthttp.Server{Handler: h, Name: "fasthttp", IdleTimeout: f.IdleTimeout}
	if *rootFlag != "" {
		srv.Handler = files(*rootFlag)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	return peer.Wait("fasthttp", f.URL(ln.Addr().String()), errc, func(ctx context.Context) error {
		// fasthttp leaves idle keep-alive connections open on shutdown, so
		// with clients still connected this waits out the grace period.
		if err := srv.ShutdownWithContext(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}, dbg)
}

// answer answers every request with body after delay: hello.Handler on
// fasthttp's API.
func answer(delay time.Duration, ctype string, body []byte) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		ctx.SetContentType(ctype)
		ctx.SetBody(body)
	}
}

// files serves the files under root as fasthttp's FS does by default for
// static sites: byte ranges on, its cache of open files and compression
// off (gust bench's file scenarios ask for the files as they are).
func files(root string) fasthttp.RequestHandler {
	fs := &fasthttp.FS{Root: root, AcceptByteRange: true, IndexNames: []string{"index.html"}}
	return fs.NewRequestHandler()
}
