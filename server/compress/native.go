package compress

import (
	"bytes"

	"github.com/gust-http/gust/internal/ascii"
	"github.com/gust-http/gust/server"
)

// Handler wraps a native handler: its response is compressed with the
// coding the request's Accept-Encoding prefers, when it is worth it (see
// Config and the package doc). A handler that calls Ctx.Flush streams
// compressed chunks: each Flush flushes the encoder, so what was written
// reaches the client. Steady state allocates nothing per response.
func (z *Compressor) Handler(h server.Handler) server.Handler {
	return server.HandlerFunc(func(c *server.Ctx) { z.serveGust(h, c) })
}

func (z *Compressor) serveGust(h server.Handler, c *server.Ctx) {
	if len(c.Header("Upgrade")) > 0 {
		h.ServeGust(c) // a WebSocket's 101: not a body to compress
		return
	}
	j := z.jobs.Get().(*job)
	j.coding = z.negotiate(c.Header("Accept-Encoding"))
	c.SetFlushHook(j)
	h.ServeGust(c) // a panic leaves j to the garbage collector
	c.SetFlushHook(nil)
	j.finish(c)
	j.reset()
	z.jobs.Put(j)
}

// job is one native response's compression: decided at the first Flush
// or at the end, then, if on, every part through one pooled encoder.
type job struct {
	z       *Compressor
	coding  Coding
	decided bool
	on      bool
	enc     *encoder
	out     sink   // the encoder's output for the current part
	scratch []byte // the weak ETag being built
}

// BeforeFlush compresses what the handler wrote since the last Flush; at
// the first, with the headers not yet sent, it decides.
func (j *job) BeforeFlush(c *server.Ctx) {
	if !j.decided {
		j.decide(c, -1)
	}
	if !j.on {
		return
	}
	j.enc.w.Write(c.ResponseBody()) // writes to a sink never fail
	j.enc.w.Flush()
	c.SetBody(j.out.b)
	j.out.b = j.out.b[:0]
}

// finish compresses the rest of the body once the handler has returned.
func (j *job) finish(c *server.Ctx) {
	if !j.decided {
		j.decide(c, len(c.ResponseBody()))
	}
	if !j.on {
		return
	}
	j.enc.w.Write(c.ResponseBody())
	j.enc.w.Close()
	c.SetBody(j.out.b)
}

// decide sets the response's headers for compression or not; size is the
// whole body's, or -1 when it streams.
func (j *job) decide(c *server.Ctx, size int) {
	j.decided = true
	if !eligible(c.Status(), c.ResponseHeader("Content-Encoding"), c.ResponseHeader("Content-Type")) {
		return
	}
	if !hasToken(c.ResponseHeader("Vary"), "accept-encoding") {
		c.SetHeader("Vary", "Accept-Encoding")
	}
	if j.coding == Identity || size >= 0 && size < j.z.minSize {
		return
	}
	j.on = true
	c.SetHeader("Content-Encoding", j.coding.String())
	if etag := c.ResponseHeader("ETag"); len(etag) > 0 && !bytes.HasPrefix(etag, []byte("W/")) {
		// The compressed bytes differ from the identity ones: a strong
		// validator would be a lie (RFC 9110 section 8.8.3).
		j.scratch = append(append(j.scratch[:0], "W/"...), etag...)
		c.DelResponseHeader("ETag")
		c.SetHeaderBytes(etagName, j.scratch)
	}
	j.enc = j.z.getEncoder(j.coding)
	j.out.b = j.out.b[:0]
	j.enc.w.Reset(&j.out)
}

var etagName = []byte("ETag")

func (j *job) reset() {
	if j.enc != nil {
		j.z.putEncoder(j.enc)
		j.enc = nil
	}
	j.decided, j.on = false, false
	if cap(j.out.b) > 1<<20 {
		j.out.b = nil // a huge response's buffer is not kept for small ones
	}
	j.out.b = j.out.b[:0]
}

// eligible says whether a response of this status and these headers may
// be compressed at all: not 1xx, 204, 206 (its Content-Range counts
// identity bytes) or 304, not one that chose its own Content-Encoding, and
// not a type compressed already.
func eligible(status int, encoding, ctype []byte) bool {
	if status < 200 || status == 204 || status == 206 || status == 304 {
		return false
	}
	return len(encoding) == 0 && compressible(ctype)
}

// hasToken reports whether the comma-separated list v holds the lowercase
// token t, ignoring case.
func hasToken(v []byte, t string) bool {
	for len(v) > 0 {
		var e []byte
		e, v = cutByte(v, ',')
		if e = trim(e); ascii.EqualLower(e, t) || len(e) == 1 && e[0] == '*' {
			return true
		}
	}
	return false
}
