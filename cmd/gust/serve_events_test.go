package main

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/sse"
)

// TestServeEventsStreams: GET /events?n=5&interval=20ms answers
// text/event-stream with five events, each flushed after the interval, on
// both engines and both of gust's APIs; bad parameters get a 400 that
// says which, and Inline mode, which cannot stream, a 501.
func TestServeEventsStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  serveConfig
	}{
		{"gust native auto", serveConfig{Engine: "gust", Mode: "auto", API: "native"}},
		{"gust native pooled", serveConfig{Engine: "gust", Mode: "pooled", API: "native"}},
		{"gust nethttp adapter", serveConfig{Engine: "gust", Mode: "auto", API: "nethttp"}},
		{"nethttp", serveConfig{Engine: "nethttp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Addr = "127.0.0.1:0"
			lines, cancel, done := startServe(t, tc.cfg)
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("runServe: %v", err)
				}
			}()
			base := "http://" + strings.Fields(strings.TrimPrefix(<-lines, "gust serve: listening on http://"))[0]
			start := time.Now()
			resp, err := http.Get(base + "/events?n=5&interval=20ms")
			if err != nil {
				t.Fatal(err)
			}
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
				t.Fatalf("status %d, Content-Type %q", resp.StatusCode, ct)
			}
			// Each event arrives on its own (flushed), not all at the end:
			// the first is read before the stream ends.
			r := bufio.NewReader(resp.Body)
			var sc sse.Scanner
			events, firstAt := 0, time.Duration(0)
			var body strings.Builder
			for {
				line, err := r.ReadString('\n')
				body.WriteString(line)
				if n := sc.Feed([]byte(line)); n > 0 {
					events += n
					if events == 1 {
						firstAt = time.Since(start)
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			resp.Body.Close()
			total := time.Since(start)
			if events != 5 {
				t.Fatalf("%d events, want 5:\n%s", events, body.String())
			}
			if !strings.HasPrefix(body.String(), "id: 1\ndata: tick 1\n\n") || !strings.Contains(body.String(), "id: 5\ndata: tick 5\n\n") {
				t.Errorf("events:\n%s", body.String())
			}
			if total < 80*time.Millisecond {
				t.Errorf("five events 20ms apart came in %v", total)
			}
			if firstAt >= total {
				t.Errorf("the first event came with the last (%v of %v): not flushed", firstAt, total)
			}
			for _, bad := range []string{"n=-1", "n=x", "interval=fast", "interval=-1s"} {
				resp, err := http.Get(base + "/events?" + bad)
				if err != nil {
					t.Fatal(err)
				}
				msg, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				name, _, _ := strings.Cut(bad, "=")
				if resp.StatusCode != 400 || !strings.Contains(string(msg), name+"=") {
					t.Errorf("%s: status %d, %q; want a 400 naming %s", bad, resp.StatusCode, msg, name)
				}
			}
		})
	}
	t.Run("gust inline", func(t *testing.T) {
		lines, cancel, done := startServe(t, serveConfig{Addr: "127.0.0.1:0", Engine: "gust", Mode: "inline", API: "native"})
		defer func() {
			cancel()
			<-done
		}()
		base := "http://" + strings.Fields(strings.TrimPrefix(<-lines, "gust serve: listening on http://"))[0]
		resp, err := http.Get(base + "/events")
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 501 || !strings.Contains(string(msg), "--mode auto or pooled") {
			t.Errorf("inline: status %d, %q", resp.StatusCode, msg)
		}
	})
}
