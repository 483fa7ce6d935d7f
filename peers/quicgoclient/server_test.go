package quicgoclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/server"
)

// start runs gust/server with HTTP/3 on a loopback port and returns its
// https:// origin.
func start(t *testing.T, mode server.Mode, h any) string {
	t.Helper()
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := &server.Server{Config: server.Config{Loops: 2, Mode: mode, HTTP3: true,
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}}
	switch h := h.(type) {
	case http.Handler:
		s.Handler = server.HTTPHandler(h)
	case server.Handler:
		s.Handler = h
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		<-done
	})
	return "https://" + s.Addr().String()
}

// client returns quic-go's HTTP/3 client, trusting any certificate.
func client(t *testing.T) *http.Client {
	tr := &http3.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	t.Cleanup(func() { tr.Close() })
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// native answers GET with its path and POST with its body's length, and
// streams three parts from /stream.
func native(c *server.Ctx) {
	switch string(c.Path()) {
	case "/stream":
		c.SetHeader("Content-Type", "text/plain")
		for i := range 3 {
			fmt.Fprintf(c, "part %d\n", i)
			if err := c.Flush(); err != nil {
				return
			}
		}
	case "/post":
		fmt.Fprintf(c, "got %d bytes, proto %d", len(c.Body()), protoMajor(c))
	default:
		c.SetHeader("X-Path", string(c.Path()))
		c.WriteString("hello over h3")
	}
}

func protoMajor(c *server.Ctx) int {
	if c.ProtoAtLeast(3, 0) {
		return 3
	}
	return 0
}

func TestNativeHandlerOverHTTP3(t *testing.T) {
	for _, mode := range []server.Mode{server.Inline, server.Pooled, server.Auto} {
		t.Run(mode.String(), func(t *testing.T) {
			origin := start(t, mode, server.HandlerFunc(native))
			cl := client(t)
			res, err := cl.Get(origin + "/a/b?x=1")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || string(body) != "hello over h3" || res.Header.Get("X-Path") != "/a/b" || res.Proto != "HTTP/3.0" {
				t.Errorf("GET: %d %q X-Path %q proto %s", res.StatusCode, body, res.Header.Get("X-Path"), res.Proto)
			}
			if res.ContentLength != int64(len("hello over h3")) {
				t.Errorf("content-length %d", res.ContentLength)
			}

			payload := bytes.Repeat([]byte("x"), 100_000)
			res, err = cl.Post(origin+"/post", "application/octet-stream", bytes.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(res.Body)
			res.Body.Close()
			if want := "got 100000 bytes, proto 3"; string(body) != want {
				t.Errorf("POST: %q, want %q", body, want)
			}

			res, err = cl.Get(origin + "/stream")
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(res.Body)
			res.Body.Close()
			want := "part 0\npart 1\npart 2\n"
			if mode == server.Inline {
				want = "part 0\n" // Flush refuses on the loop: the handler stops, its first part goes out
			}
			if string(body) != want {
				t.Errorf("stream: %q, want %q", body, want)
			}
		})
	}
}

// The net/http adapter: Proto, the request body, a flushed body in parts
// the client reads before the handler ends, and trailers.
func TestAdapterOverHTTP3(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Trailer", "X-Sum")
		fmt.Fprintf(w, "%s %d %s", r.Proto, len(b), r.Header.Get("X-Test"))
		w.Header().Set("X-Sum", fmt.Sprint(len(b)))
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-release // the client has read the first event before the second is written
		io.WriteString(w, "data: second\n\n")
	})
	origin := start(t, server.Auto, http.Handler(mux))
	cl := client(t)

	req, _ := http.NewRequest("POST", origin+"/echo", strings.NewReader("0123456789"))
	req.Header.Set("X-Test", "yes")
	res, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "HTTP/3.0 10 yes" || res.Trailer.Get("X-Sum") != "10" {
		t.Errorf("echo: %q, trailer %v", body, res.Trailer)
	}

	res, err = cl.Get(origin + "/events")
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, len("data: first\n\n"))
	if _, err := io.ReadFull(res.Body, first); err != nil || string(first) != "data: first\n\n" {
		t.Fatalf("first event: %q %v", first, err)
	}
	close(release)
	rest, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(rest) != "data: second\n\n" {
		t.Errorf("second event: %q", rest)
	}
}

// 100 requests at once on one connection, and Alt-Svc on HTTP/1.1 over
// TLS pointing at the same port.
func TestManyStreamsAndAltSvc(t *testing.T) {
	origin := start(t, server.Inline, server.HandlerFunc(native))
	cl := client(t)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cl.Get(fmt.Sprintf("%s/n%d", origin, i))
			if err != nil {
				errs <- err
				return
			}
			defer res.Body.Close()
			if got := res.Header.Get("X-Path"); got != fmt.Sprintf("/n%d", i) {
				errs <- fmt.Errorf("request %d answered for %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	h1 := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 5 * time.Second}
	res, err := h1.Get(origin + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	port := origin[strings.LastIndex(origin, ":"):]
	if want := `h3="` + port + `"; ma=86400`; res.Header.Get("Alt-Svc") != want {
		t.Errorf("Alt-Svc %q, want %q", res.Header.Get("Alt-Svc"), want)
	}
}

// Auto mode: a handler that waits is moved off the loop and answers in
// the end, while the loop serves the other requests meanwhile.
func TestAutoMovesAWaitingHandlerOff(t *testing.T) {
	release := make(chan struct{})
	origin := start(t, server.Auto, server.HandlerFunc(func(c *server.Ctx) {
		if string(c.Path()) == "/wait" {
			<-release
		}
		c.WriteString("done " + string(c.Path()))
	}))
	cl := client(t)
	waited := make(chan string, 1)
	go func() {
		res, err := cl.Get(origin + "/wait")
		if err != nil {
			waited <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		waited <- string(b)
	}()
	for i := range 20 {
		res, err := cl.Get(fmt.Sprintf("%s/fast%d", origin, i))
		if err != nil {
			t.Fatalf("a request beside the waiting one: %v", err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if want := fmt.Sprintf("done /fast%d", i); string(b) != want {
			t.Fatalf("got %q, want %q", b, want)
		}
	}
	close(release)
	if got := <-waited; got != "done /wait" {
		t.Errorf("the waiting handler's answer: %q", got)
	}
}
