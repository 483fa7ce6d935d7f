//go:build linux

package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// The net/http adapter on an HTTP/2 stream: an *http.Request with
// ProtoMajor 2 whose Body reads the stream as DATA arrives, and a
// ResponseWriter that flushes (http.Flusher) and sends trailers.

// errBodyClosed is what reading a request body after Close returns.
var errBodyClosed = errors.New("http: invalid Read on closed Body")

// serveH2 runs the http.Handler on the stream's request and returns the
// response's last part.
func (a *httpAdapter) serveH2(c *Ctx, st *h2stream) h2part {
	head := headStrings{raw: c.rawHead, str: string(c.rawHead)}
	target := head.of(c.req.Target)
	// The URL, the body and the writer share one allocation; the handler
	// may keep any of them, which keeps them all.
	sr := &h2Serve{}
	u := &sr.url
	if !parsePlainTarget(target, u) {
		parsed, err := url.ParseRequestURI(target)
		if err != nil {
			return h2part{status: 400, fields: []http2.Field{{Name: "content-length", Value: "0"}}, end: true}
		}
		u = parsed
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st.mu.Lock()
	st.cancel = cancel
	st.mu.Unlock()
	if st.gone.Load() {
		cancel()
	}
	// Built here, copied once by WithContext: no second allocation.
	req := http.Request{
		Method:     head.of(c.req.Method),
		URL:        u,
		Proto:      "HTTP/2.0",
		ProtoMajor: 2,
		Header:     make(http.Header, len(c.req.Headers)),
		Host:       head.of(c.req.Host),
		RequestURI: target,
		Body:       http.NoBody,
		RemoteAddr: st.hc.remote,
	}
	adapterHeader(&req, c.req.Headers, head.of)
	r := req.WithContext(ctx)
	if !st.noBody && !st.tunnel {
		sr.body = h2Body{st: st, req: r, onLoop: c.mover != nil}
		r.Body = &sr.body
		r.ContentLength = c.req.ContentLength
	}
	sr.w = h2Writer{st: st, c: c, header: make(http.Header), head: c.head}
	w := &sr.w
	if !a.runStream(w.c.srv, w, r) {
		if w.headersPosted() {
			return w.withHeld(h2part{reset: true})
		}
		return h2part{status: 500, fields: []http2.Field{{Name: "content-length", Value: "0"}}, end: true}
	}
	return w.withHeld(w.final())
}

// h2Serve holds what serveH2 makes for a request, in one allocation.
type h2Serve struct {
	url  url.URL
	body h2Body
	w    h2Writer
}

// runStream calls the handler on a stream's request (HTTP/2 or HTTP/3);
// false if it panicked (logged, as net/http does, except for
// http.ErrAbortHandler).
func (a *httpAdapter) runStream(s *Server, w http.ResponseWriter, r *http.Request) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			if v != http.ErrAbortHandler {
				s.cfg.ErrorLog.Printf("gust/server: panic serving %s %s: %v\n%s", r.Method, r.RequestURI, v, debug.Stack())
			}
		}
	}()
	a.h.ServeHTTP(w, r)
	return true
}

// adapterHeader fills r.Header from a stream request's fields, str making
// each a string: host is r.Host's, keys are canonical (the common ones
// without allocating), cookie fields are joined as for HTTP/1.1 (RFC 9113
// section 8.2.3, RFC 9114 section 4.2.1), and the names the Trailer field
// declares become r.Trailer's keys.
func adapterHeader(r *http.Request, fields []head.Field, str func([]byte) string) {
	values := make([]string, len(fields)) // one backing array for single values
	for i, h := range fields {
		name := str(h.Name)
		if name == "host" {
			continue
		}
		key, ok := commonHeaders[name]
		if !ok {
			key = http.CanonicalHeaderKey(name)
		}
		v := str(h.Value)
		if key == "Cookie" && len(r.Header[key]) > 0 {
			r.Header[key][0] += "; " + v
			continue
		}
		if prev, seen := r.Header[key]; seen {
			r.Header[key] = append(prev, v)
		} else {
			values[i] = v
			r.Header[key] = values[i : i+1 : i+1]
		}
		if key == "Trailer" {
			for v != "" {
				var t string
				t, v, _ = strings.Cut(v, ",")
				if t = strings.TrimSpace(t); t != "" {
					if r.Trailer == nil {
						r.Trailer = http.Header{}
					}
					r.Trailer[http.CanonicalHeaderKey(t)] = nil
				}
			}
		}
	}
}

// h2Body is a request body read from its stream as DATA arrives; what the
// handler reads is given back to the client as window.
type h2Body struct {
	st     *h2stream
	req    *http.Request
	credit int   // read and not yet posted
	total  int64 // read so far, against MaxBodyBytes
	closed bool
	onLoop bool // its handler started on its loop (Auto): see giveBack
}

// creditBatch is how much a handler reads before the window it frees is
// posted to the loop.
const creditBatch = 16 << 10

// Read and Close may run on different goroutines, as net/http allows (a
// handler closes the body while a goroutine of its own reads it, as
// grpc-go's does): every field of b is touched under the stream's lock,
// and Close wakes a Read that waits.
func (b *h2Body) Read(p []byte) (int, error) {
	st := b.st
	st.mu.Lock()
	for !b.closed && st.inOff == len(st.in) && !st.eof && st.inErr == nil {
		credit := b.credit
		b.credit = 0
		st.mu.Unlock()
		if credit > 0 {
			b.giveBack(credit)
		}
		<-st.wake
		st.mu.Lock()
	}
	if b.closed {
		st.mu.Unlock()
		return 0, errBodyClosed
	}
	if st.inOff < len(st.in) {
		n := copy(p, st.in[st.inOff:])
		st.inOff += n
		b.credit += n
		b.total += int64(n)
		tooLarge := b.total > st.srv.cfg.MaxBodyBytes
		credit := 0
		if b.credit >= creditBatch && !tooLarge {
			credit, b.credit = b.credit, 0
		}
		st.mu.Unlock()
		if tooLarge {
			return 0, errBodyTooLarge
		}
		if credit > 0 {
			b.giveBack(credit)
		}
		return n, nil
	}
	err := st.inErr
	if st.eof {
		err = io.EOF
		for _, f := range st.trailer {
			if b.req.Trailer == nil {
				break // none declared: none shown, as net/http's HTTP/2 server does
			}
			k := http.CanonicalHeaderKey(f.Name)
			b.req.Trailer[k] = append(b.req.Trailer[k], f.Value)
		}
		st.trailer = nil
	}
	st.mu.Unlock()
	return 0, err
}

// Close drops what the handler did not read and gives its window back.
func (b *h2Body) Close() error {
	st := b.st
	st.mu.Lock()
	if b.closed {
		st.mu.Unlock()
		return nil
	}
	b.closed = true
	left := len(st.in) - st.inOff
	st.in, st.inOff = nil, 0
	if st.inErr == nil && !st.eof {
		st.inErr = errBodyClosed
	}
	n := b.credit + left
	b.credit = 0
	st.mu.Unlock()
	st.signal() // a Read waiting for data returns errBodyClosed
	if n > 0 {
		b.giveBack(n)
	}
	return nil
}

// h2Writer is the http.ResponseWriter of a stream.
type h2Writer struct {
	st     *h2stream
	c      *Ctx // its out holds the body not yet posted
	header http.Header
	status int
	head   bool
	// trailers: names declared in the Trailer header when the headers went out.
	trailers []string
}

var _ http.Flusher = (*h2Writer)(nil)

// flushThreshold is the body a handler writes before it goes out without
// a Flush, which bounds a stream's memory.
const flushThreshold = 64 << 10

func (w *h2Writer) Header() http.Header { return w.header }

func (w *h2Writer) headersPosted() bool { return w.st.headersPosted }

func (w *h2Writer) WriteHeader(code int) {
	if w.st.headersPosted || w.status != 0 || code < 200 || code > 999 {
		return // interim responses are not forwarded
	}
	w.status = code
}

func (w *h2Writer) Write(p []byte) (int, error) {
	if err := beginWrite(w.header, &w.status, w.st.headersPosted, len(w.c.out), p); err != nil {
		return 0, err
	}
	if w.head {
		return len(p), nil
	}
	if w.c.file != nil {
		// What follows a file body goes after it: the file goes first.
		if err := w.flush(); err == ErrNotStreamable {
			w.c.fileIntoOut() // Inline mode: read it now
		} else if err != nil {
			return 0, err
		}
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
func (w *h2Writer) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Flush sends the headers and the body written so far (http.Flusher).
func (w *h2Writer) Flush() { w.flush() }

// flush posts the headers (once) and the body so far. Up to
// asyncFlushLimit bytes not yet framed it does not wait; past that, or
// with a file, it waits until they are framed. A handler on its loop
// (Auto) stays there while its flushes are held for the loop
// (holdOnLoop); otherwise it moves off first, so a body past
// flushThreshold moves it too.
func (w *h2Writer) flush() error {
	if w.c.mover != nil && w.c.file == nil {
		if held, err := w.holdOnLoop(); held {
			return err
		}
	}
	w.c.offLoop()
	if w.st.ack == nil {
		return ErrNotStreamable // Inline mode
	}
	p := h2part{body: w.c.out}
	p.file, w.c.file = w.c.file, nil // read by the loop: flush returns once it is all framed
	if !w.st.headersPosted {
		w.st.headersPosted = true
		p.status, p.fields = w.fields(-1)
	}
	if p.status == 0 && len(p.body) == 0 && p.file == nil {
		return nil
	}
	if p.file == nil && w.st.asyncBytes.Load()+int64(len(p.body)) <= asyncFlushLimit {
		// Not waited for: the part takes the buffer, and a flush that
		// follows before the loop frames it joins it (a gRPC message and
		// its trailers, say, in one write).
		w.asyncPart(&p)
		if err := w.st.post(&p, 0); err != nil {
			w.st.asyncBytes.Add(-int64(p.async))
			p.free()
			return err
		}
		return nil
	}
	err := w.st.postWait(&p)
	w.c.out = w.c.out[:0]
	return err
}

// asyncPart makes p, a flush not waited for, own the body's buffer, and
// counts its bytes in the stream's asyncBytes until they are framed.
func (w *h2Writer) asyncPart(p *h2part) {
	p.own, p.async = w.c.out, len(p.body)
	w.c.out = getBuf()
	w.st.asyncBytes.Add(int64(p.async))
}

// final is the response's last part, after the handler returned.
func (w *h2Writer) final() h2part {
	if u := w.c.upgrade; u != nil && !w.st.headersPosted {
		w.c.upgrade = nil
		w.st.headersPosted = true
		w.status = http.StatusOK
		_, fields := w.fields(-1)
		return wsUpgradePart(u, fields)
	}
	p := h2part{end: true}
	if !w.st.headersPosted {
		w.st.headersPosted = true
		length := len(w.c.out)
		if w.c.file != nil {
			length = int(w.c.file.total)
		}
		if w.head || w.header.Get("Trailer") != "" || hasTrailerPrefix(w.header) {
			length = -1
		}
		p.status, p.fields = w.fields(length)
	}
	if len(w.c.out) > 0 {
		p.body, p.own = w.c.out, w.c.out // see finalPart
		w.c.out = getBuf()
	}
	p.file, w.c.file = w.c.file, nil
	p.trailers = adapterTrailers(w.header, w.trailers)
	return p
}

// fields returns the status and the header fields to send (adapterFields).
func (w *h2Writer) fields(length int) (int, []http2.Field) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.status, adapterFields(w.c.srv, w.header, w.status, length, &w.trailers)
}

// beginWrite is what a stream's ResponseWriter does before it keeps the
// bytes of a Write: the status defaults to 200, the content type is
// sniffed from the body's first bytes (as net/http does) unless the head
// went out or one is set, and a status without a body refuses them.
func beginWrite(header http.Header, status *int, headSent bool, buffered int, p []byte) error {
	if *status == 0 {
		*status = http.StatusOK
	}
	if !headSent && header.Get("Content-Type") == "" && buffered == 0 && len(p) > 0 && http1.BodyAllowed(*status) {
		header.Set("Content-Type", http.DetectContentType(p))
	}
	if !http1.BodyAllowed(*status) {
		return http.ErrBodyNotAllowed
	}
	return nil
}

// upgradeStream is UpgradeWebSocket on an adapter's HTTP/2 stream (an
// extended CONNECT); false for another ResponseWriter. A refused upgrade's
// status and reason become w's response.
func upgradeStream(w http.ResponseWriter, ws *WebSocket) (bool, error) {
	hw, ok := w.(*h2Writer)
	if !ok {
		return false, nil
	}
	if hw.st.headersPosted || hw.status != 0 {
		return true, errors.New("server: UpgradeWebSocket after the response began")
	}
	err := hw.c.UpgradeWebSocket(ws) // headers set on w go out with the 200
	if err != nil {
		hw.status = hw.c.status
		hw.header.Set("Content-Type", "text/plain; charset=utf-8")
		if hw.status == http.StatusUpgradeRequired {
			hw.header.Set("Sec-WebSocket-Version", "13")
		}
	}
	return true, err
}
