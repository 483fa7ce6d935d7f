package compare

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/gust-http/gust/server"
)

var helloBody = []byte("Hello, Go!")

// A peer is a server under test: it starts on a loopback port and returns
// its URL and a stop function.
type peer struct {
	name  string
	start func(tb testing.TB) string
}

var peers = []peer{
	{"gust-native", func(tb testing.TB) string {
		return startGust(tb, server.HandlerFunc(func(c *server.Ctx) {
			c.SetContentType("text/plain; charset=utf-8")
			c.Write(helloBody)
		}), server.Pooled)
	}},
	{"gust-inline", func(tb testing.TB) string {
		return startGust(tb, server.HandlerFunc(func(c *server.Ctx) {
			c.SetContentType("text/plain; charset=utf-8")
			c.Write(helloBody)
		}), server.Inline)
	}},
	{"gust-adapter", func(tb testing.TB) string {
		return startGust(tb, server.HTTPHandler(http.HandlerFunc(netHTTPHello)), server.Pooled)
	}},
	{"fasthttp", func(tb testing.TB) string {
		ln := listen(tb)
		srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.Write(helloBody)
		}}
		go srv.Serve(ln)
		tb.Cleanup(func() { srv.Shutdown() })
		return "http://" + ln.Addr().String() + "/"
	}},
	{"nethttp", func(tb testing.TB) string {
		ln := listen(tb)
		srv := &http.Server{Handler: http.HandlerFunc(netHTTPHello)}
		go srv.Serve(ln)
		tb.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String() + "/"
	}},
}

func netHTTPHello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(helloBody)
}

func listen(tb testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}

func startGust(tb testing.TB, h server.Handler, mode server.Mode) string {
	s := &server.Server{Handler: h, Config: server.Config{Mode: mode}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	go s.Serve()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return "http://" + s.Addr().String() + "/"
}
