package compress

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/server"
)

var (
	firstPart  = bytes.Repeat([]byte("event: tick\n"), 10) // under MinSize: streams compress anyway
	secondPart = bigJSON[:8192]
)

// streamGate holds a streaming handler after its first Flush until the
// client has read the first part, or 5 s pass (then timedOut is set).
// Each request gets a new gateRun: the test's side and the handler's
// meet only through it (the sockets between them are invisible to the
// race detector).
type streamGate struct{ cur atomic.Pointer[gateRun] }

type gateRun struct {
	release  chan struct{}
	timedOut atomic.Bool
}

func (g *streamGate) wait() {
	run := g.cur.Load()
	select {
	case <-run.release:
	case <-time.After(5 * time.Second):
		run.timedOut.Store(true)
	}
}

func (g *streamGate) native() server.Handler {
	return server.HandlerFunc(func(c *server.Ctx) {
		c.SetContentType("text/event-stream")
		c.Write(firstPart)
		c.Flush()
		g.wait()
		c.Write(secondPart)
	})
}

func (g *streamGate) netHTTP() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(firstPart)
		w.(http.Flusher).Flush()
		g.wait()
		w.Write(secondPart)
	})
}

// TestStreamFlush checks that each coding delivers what was written
// before a Flush while the handler still runs, natively and through the
// middleware, over HTTP/1.1 and h2c.
func TestStreamFlush(t *testing.T) {
	z := New(Config{})
	g := &streamGate{}
	servers := map[string]string{
		"native-pooled": startGust(t, z.Handler(g.native()), server.Pooled),
		"native-auto":   startGust(t, z.Handler(g.native()), server.Auto),
		"adapter-auto":  startGust(t, server.HTTPHandler(z.Middleware(g.netHTTP())), server.Auto),
		"nethttp":       startNetHTTP(t, z.Middleware(g.netHTTP())),
	}
	for name, base := range servers {
		for cname, client := range clients() {
			for _, coding := range []string{"gzip", "br", "zstd"} {
				t.Run(name+"/"+cname+"/"+coding, func(t *testing.T) {
					run := &gateRun{release: make(chan struct{})}
					g.cur.Store(run)
					checkStream(t, client, base, coding, run)
				})
			}
		}
	}
}

func checkStream(t *testing.T, client *http.Client, base, coding string, g *gateRun) {
	req, _ := http.NewRequest("GET", base+"/events", nil)
	req.Header.Set("Accept-Encoding", coding)
	resp, err := client.Do(req)
	if err != nil {
		close(g.release)
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != coding {
		close(g.release)
		t.Fatalf("Content-Encoding %q, want %q", ce, coding)
	}
	first := make(chan []byte, 1)
	var dec io.Reader
	go func() {
		var err error
		if dec, err = decoder(coding, resp.Body); err != nil {
			first <- nil
			return
		}
		b := make([]byte, len(firstPart))
		n, _ := io.ReadFull(dec, b)
		first <- b[:n]
	}()
	got := <-first
	close(g.release)
	if g.timedOut.Load() || !bytes.Equal(got, firstPart) {
		t.Fatalf("first part: got %q before the handler went on (timed out: %v), want %q", got, g.timedOut.Load(), firstPart)
	}
	rest, err := io.ReadAll(dec)
	if err != nil || !bytes.Equal(rest, secondPart) {
		t.Fatalf("second part: %d bytes, %v; want %d bytes", len(rest), err, len(secondPart))
	}
}

// TestFlushRefusedInline checks a handler that flushes in Inline mode,
// where Flush is refused: its whole body arrives compressed, intact.
func TestFlushRefusedInline(t *testing.T) {
	z := New(Config{})
	h := server.HandlerFunc(func(c *server.Ctx) {
		c.Write(firstPart)
		if c.Flush() != server.ErrNotStreamable {
			c.SetStatus(500)
		}
		c.Write(secondPart)
	})
	base := startGust(t, z.Handler(h), server.Inline)
	for cname, client := range clients() {
		req, _ := http.NewRequest("GET", base+"/", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body, err := decode(resp.Header.Get("Content-Encoding"), raw)
		want := append(append([]byte(nil), firstPart...), secondPart...)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || err != nil || !bytes.Equal(body, want) {
			t.Errorf("%s: %s, Content-Encoding %q, %d bytes decoded (%v), want %d", cname, resp.Status, resp.Header.Get("Content-Encoding"), len(body), err, len(want))
		}
	}
}
