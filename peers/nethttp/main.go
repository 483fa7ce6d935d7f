// Command nethttp is the plain net/http peer: it answers "Hello, Go!"
// (text/plain) on every path and method, so gust and its generator can be
// measured against the standard library.
//
// Flags: -addr (default 127.0.0.1:8082), -delay (wait before answering,
// cut short when the client leaves), -debug-addr (expvar and pprof), the
// TLS flags of every peer (-tls-cert FILE -tls-key FILE, or
// -tls-self-signed), and two of its own for HTTP/2:
//
//   - -http2: over TLS, offer h2 before http/1.1 by ALPN (without it the
//     peer offers http/1.1 alone);
//   - -h2c: without TLS, also answer HTTP/2 with prior knowledge
//     (http.Server.Protocols with UnencryptedHTTP2), beside HTTP/1.1.
//
// For gust bench's compression cells, -compress gzips answers through
// klauspost's gzhttp (the common net/http gzip middleware) at level 5,
// and -body-json N answers N bytes of hello.JSON instead of the greeting.
// -root DIR serves the files under DIR with http.FileServer instead
// (gust bench's file scenarios).
//
// SIGINT or SIGTERM shut it down within 5 s.
package main

import (
	"context"
	"errors"
	"flag"
	"net/http"

	"github.com/klauspost/compress/gzhttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

var (
	http2Flag    = flag.Bool("http2", false, "with TLS, serve HTTP/2 (h2 by ALPN) beside HTTP/1.1")
	h2cFlag      = flag.Bool("h2c", false, "without TLS, serve HTTP/2 with prior knowledge (h2c) beside HTTP/1.1")
	compressFlag = flag.Bool("compress", false, "gzip answers through klauspost's gzhttp, at level 5 (gust serve --compress's gzip level)")
	bodyJSON     = flag.Int("body-json", 0, "answer with this many bytes of JSON (hello.JSON, application/json) instead of Hello, Go!")
	rootFlag     = flag.String("root", "", "serve the files under this directory (http.FileServer) instead of Hello, Go!")
)

func main() { peer.Main("nethttp", "127.0.0.1:8082", run) }

func run(f peer.Flags) error {
	srv, err := newServer(f, *http2Flag, *h2cFlag)
	if err != nil {
		return err
	}
	ln, dbg, err := peer.Listen("nethttp", f)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	err = peer.Wait("nethttp", f.URL(ln.Addr().String()), errc, func(ctx context.Context) error {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
			return err
		}
		return nil
	}, dbg)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// newServer returns the server the flags ask for: HTTP/1.1 always, h2 by
// ALPN with TLS and h2, h2c without TLS and h2c.
func newServer(f peer.Flags, h2, h2c bool) (*http.Server, error) {
	switch {
	case h2 && !f.TLS.On():
		return nil, errors.New("-http2 is HTTP/2 over TLS: give -tls-self-signed or -tls-cert and -tls-key too, or use -h2c")
	case h2c && f.TLS.On():
		return nil, errors.New("-h2c is HTTP/2 without TLS: drop the TLS flags, or use -http2")
	}
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(h2)
	protos.SetUnencryptedHTTP2(h2c)
	alpn := []string{"http/1.1"}
	if h2 {
		alpn = []string{"h2", "http/1.1"}
	}
	cfg, err := peer.TLSConfig("nethttp", f, alpn...)
	if err != nil {
		return nil, err
	}
	h, err := handler(f, *compressFlag, *bodyJSON)
	if err != nil {
		return nil, err
	}
	return &http.Server{Handler: h, Protocols: &protos, TLSConfig: cfg, IdleTimeout: f.IdleTimeout}, nil
}

// handler is hello.Handler, or hello.JSON's document with -body-json,
// gzipped by gzhttp with -compress.
func handler(f peer.Flags, compress bool, jsonBytes int) (http.Handler, error) {
	h := hello.Handler(nil, f.Delay)
	if *rootFlag != "" {
		h = http.FileServer(http.Dir(*rootFlag))
	}
	if jsonBytes > 0 {
		h = hello.TypedHandler(hello.JSON(jsonBytes), "application/json", f.Delay)
	}
	if !compress {
		return h, nil
	}
	wrap, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(5))
	if err != nil {
		return nil, err
	}
	return wrap(h), nil
}
