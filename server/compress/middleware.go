package compress

import (
	"bufio"
	"net"
	"net/http"
	"strings"
)

// Middleware wraps a net/http handler, for gust's adapter
// (server.HTTPHandler) or net/http's own server alike: the response is
// compressed as Handler does it. The body is held until MinSize bytes
// are written (or Flush is called) to decide; http.Flusher flushes the
// encoder, then the connection. Upgrade requests pass through; HEAD gets
// GET's headers, as Handler does.
func (z *Compressor) Middleware(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			h.ServeHTTP(w, r)
			return
		}
		cw := z.writers.Get().(*responseWriter)
		cw.ResponseWriter = w
		cw.coding = z.negotiate(headerBytes(r.Header, "Accept-Encoding"))
		h.ServeHTTP(cw, r) // a panic leaves cw to the garbage collector
		cw.finish()
		cw.reset()
		z.writers.Put(cw)
	})
}

// headerBytes views the first value of a request header as bytes.
func headerBytes(h http.Header, name string) []byte {
	v := h[name]
	if len(v) == 0 {
		return nil
	}
	return stringBytes(v[0])
}

// responseWriter is the middleware's http.ResponseWriter.
type responseWriter struct {
	http.ResponseWriter
	z       *Compressor
	coding  Coding
	status  int
	decided bool
	on      bool
	held    []byte // the body written before deciding
	enc     *encoder
}

// Header values shared by every response (never modified in place).
var (
	varyValue    = []string{"Accept-Encoding"}
	codingValues = [4][]string{Zstd: {"zstd"}, Brotli: {"br"}, Gzip: {"gzip"}}
)

// WriteHeader records the status; it is sent once the coding is decided.
// Informational statuses go out at once.
func (w *responseWriter) WriteHeader(code int) {
	if code < 200 && code >= 100 {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if w.status == 0 {
		w.status = code
	}
}

// Write compresses p, or holds it until MinSize bytes decide.
func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.decided {
		if len(w.held)+len(p) < w.z.minSize {
			w.held = append(w.held, p...)
			return len(p), nil
		}
		w.decide(w.held, p)
		if err := w.writeHeld(); err != nil {
			return 0, err
		}
	}
	if w.on {
		return w.enc.w.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush decides if undecided (a streamed response is compressed whatever
// its size), flushes the encoder and then the connection.
func (w *responseWriter) Flush() {
	if !w.decided {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		w.decide(w.held, nil)
		if w.writeHeld() != nil {
			return
		}
	}
	if w.on {
		w.enc.w.Flush()
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
		return
	}
	http.NewResponseController(w.ResponseWriter).Flush() // a writer that only unwraps to a Flusher
}

// Hijack hands the connection over when the server's writer can.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap gives http.ResponseController the server's writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// decide sets the headers, compressing if the response is eligible, and
// sends them: the body is MinSize bytes or more, or streams. a and b are
// the body's first bytes, for sniffing a missing Content-Type.
func (w *responseWriter) decide(a, b []byte) {
	w.decided = true
	h := w.ResponseWriter.Header()
	ct := h.Get("Content-Type")
	if ct == "" && h["Content-Type"] == nil {
		// net/http would sniff the compressed bytes: sniff the plain ones
		// (nothing written yet, before a Flush: text, as gust's default).
		sniff := a
		if len(sniff) == 0 {
			sniff = b
		}
		ct = "text/plain; charset=utf-8"
		if len(sniff) > 0 {
			ct = http.DetectContentType(sniff)
		}
		h.Set("Content-Type", ct)
	}
	if eligible(w.status, stringBytes(h.Get("Content-Encoding")), stringBytes(ct)) {
		w.vary(h)
		if w.coding != Identity {
			w.start(h)
		}
	}
	w.ResponseWriter.WriteHeader(w.status)
}

// vary adds Accept-Encoding to Vary unless it is there.
func (w *responseWriter) vary(h http.Header) {
	v := h["Vary"]
	for _, s := range v {
		if hasToken(stringBytes(s), "accept-encoding") {
			return
		}
	}
	if len(v) == 0 {
		h["Vary"] = varyValue
	} else {
		h.Add("Vary", "Accept-Encoding")
	}
}

// start switches the response to the coding.
func (w *responseWriter) start(h http.Header) {
	w.on = true
	h["Content-Encoding"] = codingValues[w.coding]
	delete(h, "Content-Length")
	// The weak indicator is case-sensitive (RFC 9110 section 8.8.3).
	if etag := h.Get("Etag"); etag != "" && !strings.HasPrefix(etag, "W/") {
		h.Set("Etag", "W/"+etag)
	}
	w.enc = w.z.getEncoder(w.coding)
	w.enc.w.Reset(w.ResponseWriter)
}

// writeHeld sends the bytes held before deciding.
func (w *responseWriter) writeHeld() error {
	if len(w.held) == 0 {
		return nil
	}
	var err error
	if w.on {
		_, err = w.enc.w.Write(w.held)
	} else {
		_, err = w.ResponseWriter.Write(w.held)
	}
	w.held = w.held[:0]
	return err
}

// finish decides a response that never reached MinSize and ends the
// coding.
func (w *responseWriter) finish() {
	if !w.decided {
		if w.status == 0 && len(w.held) == 0 {
			return // nothing written: the server answers 200 with no body
		}
		if w.status == 0 {
			w.status = http.StatusOK
		}
		w.decided = true // too small to compress, but Vary still applies
		h := w.ResponseWriter.Header()
		if ct := h.Get("Content-Type"); eligible(w.status, stringBytes(h.Get("Content-Encoding")), stringBytes(ct)) {
			w.vary(h)
		}
		w.ResponseWriter.WriteHeader(w.status)
		w.writeHeld()
		return
	}
	if w.on {
		w.enc.w.Close()
	}
}

func (w *responseWriter) reset() {
	if w.enc != nil {
		w.z.putEncoder(w.enc)
		w.enc = nil
	}
	w.ResponseWriter = nil
	w.status, w.decided, w.on = 0, false, false
	if cap(w.held) > 64<<10 {
		w.held = nil
	}
	w.held = w.held[:0]
}
