//go:build linux

package server

import (
	"errors"
	"io"
	"log"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestInlineGoexitStopsTheServer: runtime.Goexit in an Inline handler ends
// its event loop's goroutine, which nothing can stop. The request still
// gets its 500, and rather than leave the loop's clients waiting on a dead
// loop, the server closes everything and Serve says why.
func TestInlineGoexitStopsTheServer(t *testing.T) {
	var logged logBuffer
	s := &Server{Handler: faulty(func(c *Ctx) { runtime.Goexit() }),
		Config: Config{Mode: Inline, Loops: 1, ErrorLog: log.New(&logged, "", 0)}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	t.Cleanup(func() { s.Close() })

	if resp, body := exchange(t, s, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || body != "fine" {
		t.Fatalf("got %d %q before the fault", resp.StatusCode, body)
	}
	c, r := rawConn(t, s)
	io.WriteString(c, "GET /fault HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading the response to the faulty request: %v", err)
	}
	if resp.StatusCode != 500 || !resp.Close {
		t.Errorf("got %d (close %v), want a 500 that closes", resp.StatusCode, resp.Close)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, errLoopExited) {
			t.Errorf("Serve returned %v, want errLoopExited", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still running after its loop's goroutine ended")
	}
	if !strings.Contains(logged.String(), "runtime.Goexit serving GET /fault") {
		t.Errorf("ErrorLog has %q, want the Goexit", logged.String())
	}
	if st := s.Stats(); st.OpenConns != 0 || st.InFlight != 0 {
		t.Errorf("%d connections open and %d requests in flight after the server stopped", st.OpenConns, st.InFlight)
	}
}
