//go:build linux

package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/gust-http/gust/internal/http3"
)

// The net/http adapter on an HTTP/3 stream, on a worker: an *http.Request
// with Proto "HTTP/3.0" whose Body reads the request's content (whole
// before the handler starts), and a ResponseWriter that flushes
// (http.Flusher) and sends trailers.

// serveH3 runs the http.Handler on the stream's request and posts its
// response.
func (a *httpAdapter) serveH3(c *Ctx, st *h3stream) {
	target := string(c.req.Target)
	u := new(url.URL)
	if !parsePlainTarget(target, u) {
		parsed, err := url.ParseRequestURI(target)
		if err != nil {
			sec := http3.AppendField(http3.AppendSectionPrefix(nil), ":status", "400")
			st.post(http3.AppendHeaders(nil, http3.AppendField(sec, "content-length", "0")), true, false)
			return
		}
		u = parsed
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &http.Request{
		Method:     string(c.req.Method),
		URL:        u,
		Proto:      "HTTP/3.0",
		ProtoMajor: 3,
		Header:     make(http.Header, len(c.req.Headers)),
		Host:       string(c.req.Host),
		RequestURI: target,
		Body:       http.NoBody,
		TLS:        st.c.tls,
		RemoteAddr: st.peer.String(),
	}
	adapterHeader(r, c.req.Headers, func(b []byte) string { return string(b) })
	if len(c.body) > 0 || c.req.ContentLength > 0 {
		r.Body = io.NopCloser(bytes.NewReader(c.body))
		r.ContentLength = int64(len(c.body))
	}
	if tr := st.rr.Trailers; len(tr) > 0 {
		if r.Trailer == nil {
			r.Trailer = make(http.Header, len(tr))
		}
		for _, f := range tr {
			k := http.CanonicalHeaderKey(string(f.Name))
			r.Trailer[k] = append(r.Trailer[k], string(f.Value))
		}
	}
	r = r.WithContext(ctx)
	w := &h3Writer{st: st, c: c, header: make(http.Header), head: c.head}
	if !a.runStream(w.c.srv, w, r) {
		if st.headersSent {
			st.mu.Lock()
			st.postedReset = true
			st.mu.Unlock()
			st.post(nil, true, false)
			return
		}
		sec := http3.AppendField(http3.AppendSectionPrefix(nil), ":status", "500")
		st.post(http3.AppendHeaders(nil, http3.AppendField(sec, "content-length", "0")), true, false)
		return
	}
	st.post(w.final(), true, false)
}

// h3Writer is the http.ResponseWriter of an HTTP/3 stream.
type h3Writer struct {
	st       *h3stream
	c        *Ctx
	header   http.Header
	status   int
	head     bool
	trailers []string // names the Trailer field declared
}

var _ http.Flusher = (*h3Writer)(nil)

// Header returns the response's header fields.
func (w *h3Writer) Header() http.Header { return w.header }

// WriteHeader sets the status; interim responses are not forwarded.
func (w *h3Writer) WriteHeader(code int) {
	if w.st.headersSent || w.status != 0 || code < 200 || code > 999 {
		return
	}
	w.status = code
}

// Write adds p to the body, flushing past flushThreshold.
func (w *h3Writer) Write(p []byte) (int, error) {
	if err := beginWrite(w.header, &w.status, w.st.headersSent, len(w.c.out), p); err != nil {
		return 0, err
	}
	if w.head {
		return len(p), nil
	}
	w.c.out = append(w.c.out, p...)
	if len(w.c.out) >= flushThreshold {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// WriteString lets io.WriteString skip a conversion.
func (w *h3Writer) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Flush sends the head and the body written so far (http.Flusher).
func (w *h3Writer) Flush() { w.flush() }

func (w *h3Writer) flush() error {
	b := w.st.frames[:0]
	if !w.st.headersSent {
		w.st.headersSent = true
		b, w.st.section = w.appendHead(b, w.st.section, -1)
	}
	if len(w.c.out) > 0 {
		b = http3.AppendData(b, w.c.out)
		w.c.out = w.c.out[:0]
	}
	w.st.frames = b
	if len(b) == 0 {
		return nil
	}
	return w.st.post(b, false, true)
}

// final returns the response's last frames: the head unless a flush sent
// it, the rest of the body, the trailers.
func (w *h3Writer) final() []byte {
	if w.c.file != nil {
		w.c.fileIntoOut()
	}
	b := w.st.frames[:0]
	if !w.st.headersSent {
		w.st.headersSent = true
		length := len(w.c.out)
		if w.head || w.header.Get("Trailer") != "" || hasTrailerPrefix(w.header) {
			length = -1
		}
		b, w.st.section = w.appendHead(b, w.st.section, length)
	}
	if len(w.c.out) > 0 {
		b = http3.AppendData(b, w.c.out)
	}
	sec := w.st.section
	if tr := adapterTrailers(w.header, w.trailers); len(tr) > 0 {
		sec = http3.AppendSectionPrefix(sec[:0])
		for _, f := range tr {
			sec = http3.AppendField(sec, f.Name, f.Value)
		}
		b = http3.AppendHeaders(b, sec)
	}
	w.st.frames, w.st.section = b, sec
	return b
}

// appendHead appends the response's HEADERS frame, its fields as
// adapterFields makes them.
func (w *h3Writer) appendHead(b, sec []byte, length int) ([]byte, []byte) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	sec = http3.AppendSectionPrefix(sec[:0])
	sec = http3.AppendField(sec, ":status", lengthString(w.status))
	for _, f := range adapterFields(w.c.srv, w.header, w.status, length, &w.trailers) {
		sec = http3.AppendField(sec, f.Name, f.Value)
	}
	return http3.AppendHeaders(b, sec), sec
}
