//go:build linux

package server

import (
	"io"
	"net/http"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// File bodies on HTTP/2 streams: the part keeps the file (h2part.file)
// and pump reads it a piece at a time into the part's own buffer, one
// piece given to the engine once the last has left it (Pending 0), so
// that a stream holds at most h2FileChunk of its file however large it
// is, and a client whose window stays shut costs that and no more. The
// file's reference goes with the part: released when the stream ends,
// is reset or its connection closes (h2part.free). A file that turns out
// shorter than the response (truncated while being sent) resets the
// stream with INTERNAL_ERROR: its headers said a length it cannot have.
// The net/http adapter's ResponseWriter hands a copied file over the same
// way (ReadFrom).

// h2FileChunk is how much of a file a stream reads at a time.
const h2FileChunk = 64 << 10

// filePiece puts the next piece of p's file body into p.body. The engine
// holds nothing of p.own now (the caller saw Pending 0), so the buffer
// is reused. It returns false if the file could not be read on: the
// stream was reset.
func (hc *h2conn) filePiece(st *h2stream, p *h2part) bool {
	if cap(p.own) < h2FileChunk {
		if p.own != nil {
			putBuf(p.own)
		}
		p.own = getBuf()
		if cap(p.own) < h2FileChunk {
			p.own = make([]byte, 0, h2FileChunk)
		}
	}
	piece, err := p.file.next(p.own[:h2FileChunk])
	if err != nil {
		c := hc.c
		c.out = hc.sc.Reset(c.out, st.id, http2.ErrCodeInternal)
		hc.endStream(st, err)
		return false
	}
	p.body = piece
	return true
}

// fileDone reports whether p has no file body left to read.
func (p *h2part) fileDone() bool { return p.file == nil || p.file.done() }

var _ io.ReaderFrom = (*h2Writer)(nil)

// ReadFrom copies r into the adapter's response on a stream, as
// responseWriter.ReadFrom does on HTTP/1.1: an open file (http.ServeContent
// and http.FileServer copy one with io.CopyN) becomes the stream's file
// body, which the loop reads as the windows allow, so the handler's
// goroutine does not wait for the client; anything else is copied as
// Write would.
func (w *h2Writer) ReadFrom(r io.Reader) (int64, error) {
	f, limit, ok := openFileOf(r)
	c := w.c
	if !ok || w.head || c.file != nil || len(c.out) > 0 || !c.files ||
		w.header.Get("Content-Type") == "" && !w.st.headersPosted {
		return io.Copy(writeOnly{w}, r) // the first bytes may be sniffed for Content-Type
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !http1.BodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if n, ok := c.sendOpenFile(f, r, limit); ok {
		return n, nil
	}
	return io.Copy(writeOnly{w}, r)
}
