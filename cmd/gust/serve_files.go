package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/gust-http/gust/server"
)

// gust serve --root DIR: the files under DIR instead of the hello answer,
// on whichever engine and API the other flags pick: gust/server's
// FileServer (native), net/http's http.FileServer through the adapter
// (--api nethttp), or net/http's own (--engine nethttp).

// checkRoot refuses --root with the hello handler's flags, and a root that
// is not a directory.
func (c *serveConfig) checkRoot() error {
	if c.Root == "" {
		return nil
	}
	if c.Handler.Body != nil || c.Handler.Delay > 0 || c.Handler.Compute > 0 || c.Handler.SlowPath != "" {
		return errors.New("serve: --root serves files; --body-size, --delay, --compute and --slow-path shape the hello answer, leave them out")
	}
	fi, err := os.Stat(c.Root)
	if err != nil {
		return fmt.Errorf("serve: --root: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("serve: --root %q is not a directory", c.Root)
	}
	return nil
}

// nativeFiles returns gust/server's file server for --root, and its Close.
func nativeFiles(root string) (server.Handler, func() error, error) {
	fs, err := server.NewFileServer(root, server.FileServerOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("serve: --root: %w", err)
	}
	return fs, fs.Close, nil
}

// netHTTPFiles is net/http's file server for --root.
func netHTTPFiles(root string) http.Handler { return http.FileServer(http.Dir(root)) }
