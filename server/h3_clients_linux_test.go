package server

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The routes that real HTTP/3 clients (headless Chromium, aioquic) are
// tested against, as a native handler and as a net/http one:
//
//	GET  /hello    "hello over h3 " + the target, X-Proto "3" when the
//	               request came over HTTP/3, X-Saw-Test the request's X-Test
//	POST /echo     the request body back, X-Body-Len and X-Body-Sha256
//	               (hex) of what was received
//	GET  /stream   "part 0\n", flushed; then waits until /release is
//	               asked for (so the client must have read part 0 while the
//	               response was still open), then "part 1\n", flushed, and
//	               "part 2\n"; if /release never comes, "part 1 (not
//	               released)\n" after h3ReleaseWait
//	GET  /release  204, lets /stream go on
//
// and, for a browser, when page is set:
//
//	GET  /         page, as text/html
//	POST /result   the page's outcome, handed to the test (results)
//	GET  /hold     waits until /result came (or h3ReleaseWait passed):
//	               an image the page loads, holding its load event, at
//	               which Chromium dumps the DOM, until the outcome is in it
//
// The net/http handler also sends a trailer on /echo, X-Sum (the body's
// length), when the request has X-Want-Trailer. Chromium is not asked for
// it: Chromium 156 fails a fetch now and then (ERR_CONNECTION_CLOSED) when
// the trailers and the FIN come in while a body read is pending, though
// the response is whole (HEADERS, DATA, HEADERS with FIN, RFC 9114 4.1).
type h3Routes struct {
	release     chan struct{}
	releaseOnce sync.Once
	page        string
	results     chan string
	resulted    chan struct{}
	resultOnce  sync.Once
	// overTCP counts the requests that did not come over HTTP/3.
	overTCP atomic.Int64
}

// h3ReleaseWait bounds how long /stream waits for /release.
const h3ReleaseWait = 20 * time.Second

func newH3Routes(page string) *h3Routes {
	return &h3Routes{release: make(chan struct{}), page: page,
		results: make(chan string, 1), resulted: make(chan struct{})}
}

// result hands the page's outcome to the test, once, and lets /hold
// answer.
func (r *h3Routes) result(s string) {
	r.resultOnce.Do(func() {
		r.results <- s
		close(r.resulted)
	})
}

// hold waits until the page's outcome came, or h3ReleaseWait passed.
func (r *h3Routes) hold() {
	select {
	case <-r.resulted:
	case <-time.After(h3ReleaseWait):
	}
}

func (r *h3Routes) releaseStream() { r.releaseOnce.Do(func() { close(r.release) }) }

// waitRelease reports whether /release came within h3ReleaseWait.
func (r *h3Routes) waitRelease() bool {
	select {
	case <-r.release:
		return true
	case <-time.After(h3ReleaseWait):
		return false
	}
}

// native is the routes as a native handler.
func (r *h3Routes) native(c *Ctx) {
	if !c.ProtoAtLeast(3, 0) {
		r.overTCP.Add(1)
	}
	switch string(c.Path()) {
	case "/hello":
		c.SetContentType("text/plain; charset=utf-8")
		if c.ProtoAtLeast(3, 0) {
			c.SetHeader("X-Proto", "3")
		}
		c.SetHeader("X-Saw-Test", string(c.Header("X-Test")))
		c.WriteString("hello over h3 ")
		c.Write(c.Target())
	case "/echo":
		body := c.Body()
		sum := sha256.Sum256(body)
		c.SetContentType("application/octet-stream")
		c.SetHeader("X-Body-Len", fmt.Sprint(len(body)))
		c.SetHeader("X-Body-Sha256", hex.EncodeToString(sum[:]))
		c.Write(body)
	case "/stream":
		c.SetContentType("text/plain; charset=utf-8")
		c.WriteString("part 0\n")
		if err := c.Flush(); err != nil {
			return
		}
		if !r.waitRelease() {
			c.WriteString("part 1 (not released)\n")
			return
		}
		c.WriteString("part 1\n")
		if err := c.Flush(); err != nil {
			return
		}
		c.WriteString("part 2\n")
	case "/release":
		r.releaseStream()
		c.SetStatus(204)
	case "/", "/result", "/hold":
		if r.page == "" {
			c.SetStatus(404)
			return
		}
		switch string(c.Path()) {
		case "/":
			c.SetContentType("text/html; charset=utf-8")
			c.WriteString(r.page)
		case "/result":
			r.result(string(c.Body()))
			c.SetStatus(204)
		case "/hold":
			r.hold()
			c.SetStatus(204)
		}
	default:
		c.SetStatus(404)
	}
}

// ServeHTTP is the routes as a net/http handler, for the adapter.
func (r *h3Routes) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.ProtoMajor != 3 {
		r.overTCP.Add(1)
	}
	switch req.URL.Path {
	case "/hello":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if req.ProtoMajor == 3 {
			w.Header().Set("X-Proto", "3")
		}
		w.Header().Set("X-Saw-Test", req.Header.Get("X-Test"))
		io.WriteString(w, "hello over h3 "+req.URL.RequestURI())
	case "/echo":
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		sum := sha256.Sum256(body)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("X-Body-Len", fmt.Sprint(len(body)))
		w.Header().Set("X-Body-Sha256", hex.EncodeToString(sum[:]))
		trailer := req.Header.Get("X-Want-Trailer") != ""
		if trailer {
			w.Header().Set("Trailer", "X-Sum")
		}
		w.Write(body)
		if trailer {
			w.Header().Set("X-Sum", fmt.Sprint(len(body)))
		}
	case "/stream":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "part 0\n")
		w.(http.Flusher).Flush()
		if !r.waitRelease() {
			io.WriteString(w, "part 1 (not released)\n")
			return
		}
		io.WriteString(w, "part 1\n")
		w.(http.Flusher).Flush()
		io.WriteString(w, "part 2\n")
	case "/release":
		r.releaseStream()
		w.WriteHeader(204)
	case "/", "/result", "/hold":
		if r.page == "" {
			http.NotFound(w, req)
			return
		}
		switch req.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, r.page)
		case "/result":
			b, _ := io.ReadAll(req.Body)
			r.result(string(b))
			w.WriteHeader(204)
		case "/hold":
			r.hold()
			w.WriteHeader(204)
		}
	default:
		http.NotFound(w, req)
	}
}

// h3Body is the POST body both clients send to /echo: 100,000 bytes,
// byte i being i mod 251, so that a lost, doubled or reordered chunk
// changes its digest.
func h3Body() []byte {
	b := make([]byte, 100_000)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// h3BodySha256 is h3Body's SHA-256 in hex.
func h3BodySha256() string {
	sum := sha256.Sum256(h3Body())
	return hex.EncodeToString(sum[:])
}

// startH3Clients starts a two-loop server in mode with HTTP/3 on the test
// certificate (testCert: localhost, 127.0.0.1, ::1) and handler h.
func startH3Clients(t *testing.T, mode Mode, h Handler) *Server {
	t.Helper()
	cert, _ := testCert()
	return serveForTest(t, &Server{Handler: h, Config: Config{Loops: 2, Mode: mode, HTTP3: true,
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}})
}

// h3Case is one handler each client is tested with.
type h3Case struct {
	name    string
	mode    Mode
	adapter bool
}

// h3Cases: native handlers in Auto and Pooled modes (Flush is refused on
// the loop in Inline mode) and the net/http adapter.
var h3Cases = []h3Case{
	{"native handler, Auto", Auto, false},
	{"native handler, Pooled", Pooled, false},
	{"HTTPHandler adapter, Auto", Auto, true},
}

// handler returns r as the case's handler.
func (k h3Case) handler(r *h3Routes) Handler {
	if k.adapter {
		return HTTPHandler(r)
	}
	return HandlerFunc(r.native)
}
