package compress

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gust-http/gust/server"
)

// TestMiddlewareNetHTTP runs the response table through Middleware on
// net/http's own server, over HTTP/1.1 and h2c.
func TestMiddlewareNetHTTP(t *testing.T) {
	z := New(Config{})
	base := startNetHTTP(t, z.Middleware(netCases))
	for name, client := range clients() {
		t.Run(name, func(t *testing.T) { checkCases(t, base, client) })
	}
}

// startNetHTTP serves h with net/http's server, HTTP/1.1 and h2c, until
// the test ends; it returns the base URL.
func startNetHTTP(tb testing.TB, h http.Handler) string {
	ts := httptest.NewUnstartedServer(h)
	ts.Config.Protocols = new(http.Protocols)
	ts.Config.Protocols.SetHTTP1(true)
	ts.Config.Protocols.SetUnencryptedHTTP2(true)
	ts.Start()
	tb.Cleanup(ts.Close)
	return ts.URL
}

// TestMiddlewareAdapter runs the response table through Middleware on
// gust's net/http adapter, over HTTP/1.1 and h2c.
func TestMiddlewareAdapter(t *testing.T) {
	z := New(Config{})
	for _, mode := range []server.Mode{server.Pooled, server.Auto} {
		base := startGust(t, server.HTTPHandler(z.Middleware(netCases)), mode)
		for name, client := range clients() {
			t.Run(mode.String()+"/"+name, func(t *testing.T) { checkCases(t, base, client) })
		}
	}
}

// TestHeadLikeGet checks that HEAD gets the headers GET gets: the same
// coding and Vary, and, where the server sends one, the Content-Length
// of the compressed body.
func TestHeadLikeGet(t *testing.T) {
	z := New(Config{})
	bases := map[string]string{
		"nethttp":      startNetHTTP(t, z.Middleware(netCases)),
		"gust-native":  startGust(t, z.Handler(nativeCases), server.Auto),
		"gust-adapter": startGust(t, server.HTTPHandler(z.Middleware(netCases)), server.Auto),
	}
	for name, base := range bases {
		for cname, client := range clients() {
			for _, path := range []string{"/json", "/small", "/png"} {
				get := fetchHead(t, client, "GET", base+path)
				head := fetchHead(t, client, "HEAD", base+path)
				for _, f := range []string{"Content-Encoding", "Vary", "Etag", "Content-Type"} {
					if g, h := get.Get(f), head.Get(f); g != h {
						t.Errorf("%s %s %s: %s is %q for GET, %q for HEAD", name, cname, path, f, g, h)
					}
				}
				if cl := head.Get("Content-Length"); cl != "" && cl != get.Get("Content-Length") && get.Get("Content-Length") != "" {
					t.Errorf("%s %s %s: HEAD's Content-Length %s, GET's %s", name, cname, path, cl, get.Get("Content-Length"))
				}
			}
		}
	}
}

func fetchHead(t *testing.T, client *http.Client, method, url string) http.Header {
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %s", method, url, resp.Status)
	}
	return resp.Header
}
