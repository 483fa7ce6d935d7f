package compress_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gust-http/gust/server"
	"github.com/gust-http/gust/server/compress"
)

// The middleware on any net/http handler: here net/http's recorder.
func ExampleCompressor_Middleware() {
	z := compress.New(compress.Config{})
	h := z.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[` + strings.Repeat(`{"id":1,"name":"alpha"},`, 100) + `{}]}`))
	}))
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "gzip, br;q=0.9")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Header().Get("Content-Encoding"), rec.Header().Get("Vary"))
	// Output: gzip Accept-Encoding
}

// The native wrapper: every response of the handler is compressed when
// the client allows and it is worth it.
func ExampleCompressor_Handler() {
	z := compress.New(compress.Config{Order: []compress.Coding{compress.Brotli, compress.Gzip}, GzipLevel: 6})
	srv := &server.Server{Handler: z.Handler(server.HandlerFunc(func(c *server.Ctx) {
		c.SetContentType("text/html; charset=utf-8")
		c.WriteString("<!doctype html>...")
	}))}
	_ = srv // srv.ListenAndServe(":8080")
}

func ExampleNegotiate() {
	for _, accept := range []string{"gzip, deflate, br, zstd", "gzip;q=0.8, br;q=0.9", "*;q=0", "deflate"} {
		fmt.Println(compress.Negotiate([]byte(accept), compress.DefaultOrder))
	}
	// Output:
	// zstd
	// br
	// identity
	// identity
}
