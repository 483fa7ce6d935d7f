package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHTTPHandlerRunsAServeMux(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "user %s from %s, q=%s, agent=%s", r.PathValue("id"), r.Host, r.URL.Query().Get("q"), r.UserAgent())
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Len", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusAccepted)
		w.Write(b)
	})
	s := start(t, HTTPHandler(mux), Config{})
	base := "http://" + s.Addr().String()
	client := &http.Client{Timeout: 5 * time.Second}

	req, _ := http.NewRequest("GET", base+"/users/42?q=x", nil)
	req.Header.Set("User-Agent", "test")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "user 42 from " + s.Addr().String() + ", q=x, agent=test"; string(body) != want {
		t.Errorf("got %q, want %q", body, want)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want it sniffed as text/plain", ct)
	}

	resp, err = client.Post(base+"/echo", "text/plain", strings.NewReader("some body"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 202 || string(body) != "some body" || resp.Header.Get("X-Len") != "9" {
		t.Errorf("echo: %d %q %v", resp.StatusCode, body, resp.Header)
	}

	resp, err = client.Get(base + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("unknown path: %d, want 404", resp.StatusCode)
	}
}

func TestHTTPHandlerFlushStreams(t *testing.T) {
	release := make(chan struct{})
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "second\n")
	})), Config{})
	c, r := rawConn(t, s)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
		t.Errorf("TransferEncoding %v, want chunked", resp.TransferEncoding)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("got %q %v before the handler finished, want the flushed line", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	if string(rest) != "second\n" {
		t.Errorf("rest %q", rest)
	}
}

// TestFlushKeepsPipelinedResponsesInOrder: a handler that flushes, between
// two pipelined requests, sends its response after the one before and
// before the one after.
func TestFlushKeepsPipelinedResponsesInOrder(t *testing.T) {
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path)
		if r.URL.Path == "/stream" {
			w.(http.Flusher).Flush()
			io.WriteString(w, "+more")
		}
	})), Config{})
	c, r := rawConn(t, s)
	io.WriteString(c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /last HTTP/1.1\r\nHost: x\r\n\r\n")
	for _, want := range []string{"/first", "/stream+more", "/last"} {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("reading %s: %v", want, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if string(b) != want {
			t.Fatalf("got %q, want %q", b, want)
		}
	}
}

// TestFlushWithoutABodyAddsNoChunks: a flushed 304 has no body, not an
// empty chunked one that the next response would be read as.
func TestFlushWithoutABodyAddsNoChunks(t *testing.T) {
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/304" {
			w.WriteHeader(http.StatusNotModified)
			w.(http.Flusher).Flush()
			return
		}
		io.WriteString(w, "next")
	})), Config{})
	c, r := rawConn(t, s)
	io.WriteString(c, "GET /304 HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != 304 {
		t.Fatalf("first: %v %v", resp, err)
	}
	resp, err = http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("the response after a flushed 304 is broken: %v", err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "next" {
		t.Errorf("got %q", b)
	}
}

// TestFlushToHTTP10StreamsRawAndCloses: a flush to an HTTP/1.0 client
// sends the body as it is (no chunked encoding) and closes to end it.
func TestFlushToHTTP10StreamsRawAndCloses(t *testing.T) {
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "part1 ")
		w.(http.Flusher).Flush()
		io.WriteString(w, "part2")
	})), Config{})
	c, r := rawConn(t, s)
	io.WriteString(c, "GET / HTTP/1.0\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) != 0 {
		t.Errorf("chunked encoding sent to an HTTP/1.0 client")
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "part1 part2" {
		t.Errorf("body %q", b)
	}
}

// TestAdapterMatchesNetHTTP: a second WriteHeader is ignored, a HEAD of
// http.ServeContent gets the Content-Length, and Host is r.Host, not a
// header, as net/http does.
func TestAdapterMatchesNetHTTP(t *testing.T) {
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/twice":
			w.WriteHeader(404)
			w.WriteHeader(500)
		case "/file":
			http.ServeContent(w, r, "f.txt", time.Unix(0, 0), strings.NewReader(strings.Repeat("x", 1234)))
		case "/headers":
			io.WriteString(w, r.Header.Get("Host")+"|"+r.Host)
		}
	})), Config{})
	if resp, _ := exchange(t, s, "GET /twice HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 404 {
		t.Errorf("WriteHeader twice: got %d, want the first (404)", resp.StatusCode)
	}
	c, r := rawConn(t, s)
	io.WriteString(c, "HEAD /file HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(r), &http.Request{Method: "HEAD"})
	if err != nil || resp.ContentLength != 1234 {
		t.Errorf("HEAD of a 1234-byte file: Content-Length %d (%v)", resp.ContentLength, err)
	}
	if _, body := exchange(t, s, "GET /headers HTTP/1.1\r\nHost: example\r\n\r\n"); body != "|example" {
		t.Errorf("got %q, want Host moved out of r.Header into r.Host", body)
	}
}

func TestHTTPHandlerContextEndsWhenTheClientLeaves(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	s := start(t, HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(5 * time.Second):
		}
	})), Config{})
	c, _ := rawConn(t, s)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case <-started: // the client leaves while its handler runs
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not start")
	}
	c.Close()
	select {
	case <-cancelled:
	case <-time.After(3 * time.Second):
		t.Error("r.Context() was not cancelled after the client closed")
	}
}

func TestHTTPHandlerNeedsPooledMode(t *testing.T) {
	s := &Server{Handler: HTTPHandler(http.NotFoundHandler()), Config: Config{Mode: Inline}}
	if err := s.Listen("127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "Pooled") {
		t.Errorf("err = %v, want a refusal naming Pooled mode", err)
	}
}

func TestShutdown(t *testing.T) {
	t.Run("finishes requests in flight and closes idle connections", func(t *testing.T) {
		started := make(chan struct{}, 1)
		s := &Server{Handler: HandlerFunc(func(c *Ctx) {
			if string(c.Path()) == "/slow" {
				started <- struct{}{}
				time.Sleep(300 * time.Millisecond)
			}
			c.WriteString("done")
		})}
		if err := s.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- s.Serve() }()

		idle, idleR := rawConn(t, s)
		io.WriteString(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, err := http.ReadResponse(idleR, nil); err != nil {
			t.Fatal(err)
		} else {
			io.Copy(io.Discard, resp.Body)
		}
		busy, busyR := rawConn(t, s)
		io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
		<-started

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		resp, err := http.ReadResponse(busyR, nil)
		if err != nil {
			t.Fatalf("the request in flight lost its response: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != "done" || !resp.Close {
			t.Errorf("in-flight response %q close=%v, want done and Connection: close", body, resp.Close)
		}
		if !closedByPeer(idle, idleR, time.Second) {
			t.Error("the idle connection was left open")
		}
		if err := <-errc; err != ErrServerClosed {
			t.Errorf("Serve returned %v", err)
		}
		if _, err := (&http.Client{Timeout: time.Second}).Get("http://" + s.Addr().String()); err == nil {
			t.Error("still accepting after Shutdown")
		}
	})
	t.Run("gives up at the context's deadline", func(t *testing.T) {
		started, block := make(chan struct{}), make(chan struct{})
		defer close(block)
		s := &Server{Handler: HandlerFunc(func(c *Ctx) { close(started); <-block })}
		if err := s.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		go s.Serve()
		c, _ := rawConn(t, s)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		select {
		case <-started: // a request in flight that will not finish
		case <-time.After(5 * time.Second):
			t.Fatal("the handler did not start")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if err := s.Shutdown(ctx); err != context.DeadlineExceeded {
			t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
		}
	})
}

func TestCloseEndsRequestContexts(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan struct{})
	s := &Server{Handler: HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-r.Context().Done():
			close(ended)
		case <-time.After(5 * time.Second):
		}
	}))}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	c, _ := rawConn(t, s)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	s.Close()
	select {
	case <-ended:
	case <-time.After(2 * time.Second):
		t.Error("Close left a request's context running")
	}
}
