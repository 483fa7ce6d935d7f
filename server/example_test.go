package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gust-http/gust/server"
)

// A native handler sees the request as byte views and allocates nothing.
func Example() {
	srv := &server.Server{
		Handler: server.HandlerFunc(func(c *server.Ctx) {
			c.SetContentType("text/plain; charset=utf-8")
			c.WriteString("Hello, ")
			c.Write(c.Path()[1:])
		}),
		Config: server.Config{IdleTimeout: time.Minute},
	}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	go srv.Serve()
	defer srv.Shutdown(context.Background())

	resp, err := http.Get("http://" + srv.Addr().String() + "/Go")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 Hello, Go
}

// Any net/http handler, router included, runs through HTTPHandler.
func ExampleHTTPHandler() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello/{name}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "Hello, %s", r.PathValue("name"))
	})
	srv := &server.Server{Handler: server.HTTPHandler(mux)}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	go srv.Serve()
	defer srv.Shutdown(context.Background())

	resp, err := http.Get("http://" + srv.Addr().String() + "/hello/gust")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))
	// Output: Hello, gust
}
