package server

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Regression tests for defects found in review.

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

func TestReadTimeoutBoundsTheBodyNotTheHead(t *testing.T) {
	echo := HandlerFunc(func(c *Ctx) { c.Write(c.Body()) })
	s := start(t, echo, Config{ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 3 * time.Second})
	c, r := rawConn(t, s)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
	time.Sleep(700 * time.Millisecond) // past ReadHeaderTimeout, within ReadTimeout
	io.WriteString(c, "world")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("a body arriving within ReadTimeout was cut: %v", err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "helloworld" {
		t.Errorf("body %q", b)
	}
}

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
