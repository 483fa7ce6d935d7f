package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gust-http/gust/server"
)

// NewFileServer serves a directory: ranges, validators and precompressed
// siblings, the bodies sent with sendfile(2) on plain TCP.
func ExampleNewFileServer() {
	dir, _ := os.MkdirTemp("", "site")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("Hello from a file served by gust.\n"), 0o644)

	files, err := server.NewFileServer(dir, server.FileServerOptions{})
	if err != nil {
		panic(err)
	}
	defer files.Close()
	srv := &server.Server{Handler: files}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	go srv.Serve()
	defer srv.Shutdown(context.Background())

	req, _ := http.NewRequest("GET", "http://"+srv.Addr().String()+"/hello.txt", nil)
	req.Header.Set("Range", "bytes=6-9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Range"), string(body))
	// Output: 206 bytes 6-9/34 from
}
