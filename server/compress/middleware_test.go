package compress

import (
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

// TestHeadPassesThrough checks that HEAD is answered without a coding.
func TestHeadPassesThrough(t *testing.T) {
	z := New(Config{})
	bases := map[string]string{
		"nethttp":      startNetHTTP(t, z.Middleware(netCases)),
		"gust-native":  startGust(t, z.Handler(nativeCases), server.Auto),
		"gust-adapter": startGust(t, server.HTTPHandler(z.Middleware(netCases)), server.Auto),
	}
	for name, base := range bases {
		for cname, client := range clients() {
			req, _ := http.NewRequest("HEAD", base+"/json", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", name, cname, err)
			}
			resp.Body.Close()
			if ce := resp.Header.Get("Content-Encoding"); ce != "" || resp.StatusCode != 200 {
				t.Errorf("%s %s: HEAD answered %d with Content-Encoding %q", name, cname, resp.StatusCode, ce)
			}
		}
	}
}
