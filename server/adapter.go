package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unsafe"

	"github.com/gust-http/gust/internal/http1"
)

// HTTPHandler serves a net/http Handler on a gust Server, so that
// http.ServeMux, chi, gorilla/mux and other routers run unchanged. It
// needs Auto (the default) or Pooled mode. A request body that has not all arrived with the head
// is streamed: r.Body reads it from the socket as the handler goes (on
// Linux; elsewhere bodies are read whole first, bounded by MaxBodyBytes);
// r.Context() is cancelled when the client goes away, and
// the ResponseWriter implements http.Flusher (streaming with chunked
// encoding) and http.Hijacker.
func HTTPHandler(h http.Handler) Handler { return &httpAdapter{h: h} }

type httpAdapter struct{ h http.Handler }

// cancelHook is implemented by connections that can tell when their client
// goes away.
type cancelHook interface {
	onClientGone(cancel context.CancelFunc)
}

func (a *httpAdapter) ServeGust(c *Ctx) {
	// One string holds the whole head; method, target and header values
	// are substrings of it, so a request costs one allocation for them all.
	head := headStrings{raw: c.rawHead}
	head.str = string(c.rawHead)
	target := head.of(c.req.Target)
	// The request's structs share one allocation; the handler may keep
	// any of them, which keeps them all.
	st := &adapterRequest{}
	u := &st.url
	if !parsePlainTarget(target, u) {
		parsed, err := url.ParseRequestURI(target)
		if err != nil {
			c.SetStatus(http.StatusBadRequest)
			c.SetConnectionClose()
			c.WriteString("400 Bad Request: " + err.Error())
			return
		}
		u = parsed
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if hook, ok := c.peer.(cancelHook); ok {
		hook.onClientGone(cancel)
		defer hook.onClientGone(nil)
	}
	// Built here, copied once by WithContext into st: no second allocation.
	req := http.Request{
		Method:     head.of(c.req.Method),
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: c.req.Major,
		ProtoMinor: c.req.Minor,
		Header:     make(http.Header, len(c.req.Headers)),
		Host:       head.of(c.req.Host),
		RequestURI: target,
		Close:      c.req.Close,
		Body:       http.NoBody,
	}
	r := &req
	if c.req.Minor == 0 {
		r.Proto = "HTTP/1.0"
	}
	values := make([]string, len(c.req.Headers)) // one backing array for single values
	for i, h := range c.req.Headers {
		key, ok := commonHeaders[string(h.Name)] // no allocation for the lookup
		if !ok {
			key = http.CanonicalHeaderKey(head.of(h.Name))
		}
		values[i] = head.of(h.Value)
		if key == "Host" || key == "Transfer-Encoding" {
			continue // net/http moves these to r.Host and r.TransferEncoding
		}
		if prev, seen := r.Header[key]; seen {
			r.Header[key] = append(prev[:len(prev):len(prev)], values[i])
		} else {
			r.Header[key] = values[i : i+1 : i+1]
		}
	}
	if c.stream != nil {
		r.Body = c.stream
		r.ContentLength = c.req.ContentLength
		if c.req.Chunked {
			r.TransferEncoding = []string{"chunked"}
			r.ContentLength = -1
		}
	} else if body := c.Body(); len(body) > 0 || c.req.Chunked {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if c.req.Chunked {
			r.TransferEncoding = []string{"chunked"}
			r.ContentLength = -1 // as net/http reports a chunked body
		}
	}
	if p, ok := c.peer.(interface{ remoteString() string }); ok {
		r.RemoteAddr = p.remoteString()
	} else if addr := c.RemoteAddr(); addr != nil {
		r.RemoteAddr = addr.String()
	}
	r.TLS = c.TLS()
	st.req = *r.WithContext(ctx)
	st.w = responseWriter{c: c, header: make(http.Header)}
	a.h.ServeHTTP(&st.w, &st.req)
	w := &st.w
	w.writeHeader()
}

// adapterRequest holds what the adapter builds for one request, in one
// allocation.
type adapterRequest struct {
	req http.Request
	url url.URL
	w   responseWriter
}

// parsePlainTarget fills u for an origin-form target ("/path?query") whose
// path needs no unescaping or re-escaping, as url.ParseRequestURI would,
// without allocating; false sends other targets to url.ParseRequestURI.
func parsePlainTarget(target string, u *url.URL) bool {
	path, query, hasQuery := strings.Cut(target, "?")
	if len(path) == 0 || path[0] != '/' || strings.HasPrefix(path, "//") {
		return false
	}
	for i := 0; i < len(path); i++ {
		b := path[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '/' || b == '-' || b == '.' || b == '_' || b == '~') {
			return false
		}
	}
	for i := 0; i < len(query); i++ {
		if b := query[i]; b < 0x20 || b == 0x7f || b == '#' {
			return false // net/url refuses control bytes; '#' is left to it
		}
	}
	u.Path, u.RawQuery = path, query
	u.ForceQuery = hasQuery && query == ""
	return true
}

// headStrings turns views of a request head into substrings of one copy.
type headStrings struct {
	raw []byte
	str string
}

func (h *headStrings) of(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(h.raw))))
	if off < 0 || off+len(b) > len(h.str) {
		return string(b) // not from the head (cannot happen with the parser's views)
	}
	return h.str[off : off+len(b)]
}

// commonHeaders maps header names as clients usually send them to their
// canonical form, so that the common ones cost no allocation.
var commonHeaders = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language",
		"Connection", "Content-Length", "Content-Type", "Cookie", "Authorization", "Cache-Control",
		"Origin", "Referer", "Upgrade-Insecure-Requests", "If-None-Match", "If-Modified-Since",
		"X-Forwarded-For", "X-Forwarded-Proto", "X-Request-Id", "Pragma", "Expect", "Transfer-Encoding",
		"Te", "Grpc-Timeout", "Grpc-Encoding", "Grpc-Accept-Encoding"} {
		m[k] = k
		m[strings.ToLower(k)] = k
	}
	return m
}()

// fieldNames maps common response header names, canonical, to the
// lowercase of HTTP/2 and HTTP/3 fields, so that they cost no allocation.
var fieldNames = func() map[string]string {
	m := map[string]string{}
	for k := range commonHeaders {
		m[http.CanonicalHeaderKey(k)] = strings.ToLower(k)
	}
	for _, k := range []string{"Date", "Server", "Trailer", "Vary", "Location", "Set-Cookie", "Etag",
		"Last-Modified", "Expires", "Content-Encoding", "Content-Language", "Content-Disposition",
		"Access-Control-Allow-Origin", "X-Content-Type-Options", "Strict-Transport-Security",
		"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin"} {
		m[k] = strings.ToLower(k)
	}
	return m
}()

// fieldName is the HTTP/2 or HTTP/3 field name of a header key.
func fieldName(k string) string {
	if l, ok := fieldNames[k]; ok {
		return l
	}
	return strings.ToLower(k)
}

// responseWriter is the http.ResponseWriter of HTTPHandler.
type responseWriter struct {
	c           *Ctx
	header      http.Header
	status      int  // set by the first WriteHeader; later calls are ignored, as in net/http
	wroteHeader bool // the header has gone into the Ctx
}

var _ http.Flusher = (*responseWriter)(nil)
var _ http.Hijacker = (*responseWriter)(nil)

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	if w.wroteHeader || w.status != 0 || code < 100 || code > 999 {
		return
	}
	if code < 200 { // interim responses are not forwarded
		return
	}
	w.status = code
}

// writeHeader moves the headers into the Ctx, once.
func (w *responseWriter) writeHeader() {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.c.SetStatus(w.status)
	for k, vs := range w.header {
		for _, v := range vs {
			w.c.SetHeader(k, v)
		}
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.c.hijacked {
		return 0, http.ErrHijacked
	}
	if !w.wroteHeader {
		if w.header.Get("Content-Type") == "" && len(p) > 0 && http1.BodyAllowed(max(w.status, 200)) {
			w.header.Set("Content-Type", http.DetectContentType(p))
		}
		w.writeHeader()
	}
	if !http1.BodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	return w.c.Write(p)
}

// WriteString lets io.WriteString skip a conversion.
func (w *responseWriter) WriteString(s string) (int, error) {
	return w.Write([]byte(s))
}

// Flush sends what has been written so far (http.Flusher).
func (w *responseWriter) Flush() {
	if w.c.hijacked {
		return
	}
	w.writeHeader()
	w.c.Flush()
}

// hijacker is implemented by connections a handler can take over.
type hijacker interface {
	// hijack writes the responses to earlier pipelined requests, detaches
	// the connection from the server and returns it.
	hijack(ctx *Ctx) (net.Conn, error)
}

// Hijack lets the handler take over the connection (http.Hijacker), for
// WebSocket and other upgrades. The server forgets the connection: it is
// the handler's to close, and the response is not sent. The returned
// reader holds any bytes the client sent after the request's head and
// body; a response header already flushed has been sent. Shutdown and
// Close neither wait for nor close hijacked connections.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.c.hijacked {
		return nil, nil, http.ErrHijacked
	}
	w.c.offLoop() // the handler keeps the connection: not on a loop
	h, ok := w.c.peer.(hijacker)
	if !ok {
		return nil, nil, errors.New("server: this connection cannot be hijacked")
	}
	rest := w.c.rest
	if bs, ok := w.c.stream.(interface{ unread() []byte }); ok {
		rest = bs.unread()
	}
	rest = bytes.Clone(rest) // the server's buffer goes back to its pool
	nc, err := h.hijack(w.c)
	if err != nil {
		return nil, nil, err
	}
	w.c.hijacked = true
	// Like net/http, the server no longer counts or waits for it: Shutdown
	// does not wait for hijacked connections.
	w.c.srv.counters.inflight.Add(-1)
	w.c.srv.counters.open.Add(-1)
	var src io.Reader = nc
	if len(rest) > 0 {
		src = io.MultiReader(bytes.NewReader(rest), nc)
	}
	br := bufio.NewReaderSize(src, max(4096, len(rest)))
	if len(rest) > 0 {
		br.Peek(len(rest)) // buffered, as net/http's reader holds them
	}
	return nc, bufio.NewReadWriter(br, bufio.NewWriter(nc)), nil
}
