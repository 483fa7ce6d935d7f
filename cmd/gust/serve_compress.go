package main

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/server"
	"github.com/gust-http/gust/server/compress"
)

// serveCompressor is the Compressor behind --compress: the package's
// defaults (zstd, br, gzip from 1 KiB; gzip 5, brotli 4, zstd 3).
var serveCompressor = compress.New(compress.Config{})

// compressNative is the native hello handler f, compressed with
// --compress.
func compressNative(cfg handlerConfig, f server.HandlerFunc) server.Handler {
	if !cfg.Compress {
		return f
	}
	return serveCompressor.Handler(f)
}

// compressHTTP is the net/http hello handler f, compressed with
// --compress (on either engine).
func compressHTTP(cfg handlerConfig, f http.HandlerFunc) http.Handler {
	if !cfg.Compress {
		return f
	}
	return serveCompressor.Middleware(f)
}

// useJSON makes the answer n bytes of hello.JSON.
func (h *handlerConfig) useJSON(n int, bodySize bool) error {
	switch {
	case bodySize:
		return errors.New("serve: give --body-size or --body-json, not both")
	case n < 64:
		return fmt.Errorf("serve: --body-json is %d; give a size of 64 bytes or more", n)
	}
	h.Body = hello.JSON(n)
	h.ContentType = "application/json"
	return nil
}
