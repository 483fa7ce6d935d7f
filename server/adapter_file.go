package server

import (
	"io"
	"net/http"
	"os"

	"github.com/gust-http/gust/internal/http1"
)

// io.ReaderFrom for the adapter's ResponseWriter, as net/http's has: a
// file copied into the response (http.ServeContent and http.FileServer
// copy with io.CopyN, which hands over an *io.LimitedReader around the
// *os.File) becomes the Ctx's file body, sent with sendfile(2) where the
// connection can (HTTP/1.1 on Linux); anything else is copied as Write
// would.

var _ io.ReaderFrom = (*responseWriter)(nil)

// ReadFrom copies r into the response body.
func (w *responseWriter) ReadFrom(r io.Reader) (int64, error) {
	f, limit, ok := openFileOf(r)
	c := w.c
	if !ok || !c.files || c.head || c.streaming || c.file != nil || len(c.out) > 0 || c.hijacked ||
		w.header.Get("Content-Type") == "" && !w.wroteHeader {
		return io.Copy(writeOnly{w}, r) // the first bytes may be sniffed for Content-Type
	}
	w.writeHeader()
	if !http1.BodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if n, ok := c.sendOpenFile(f, r, limit); ok {
		return n, nil
	}
	return io.Copy(writeOnly{w}, r)
}

// openFileOf returns the open file r reads, if it is one, and how much of
// it r may read (-1: to its end): an *os.File, or what io.Copy hands
// over for one (os.File.WriteTo copies through an unexported wrapper,
// without WriteTo, around it), possibly in an *io.LimitedReader
// (io.CopyN).
func openFileOf(r io.Reader) (f openFile, limit int64, ok bool) {
	limit = -1
	if lr, isLimited := r.(*io.LimitedReader); isLimited {
		r, limit = lr.R, lr.N
	}
	f, ok = r.(openFile)
	return f, limit, ok
}

// sendOpenFile makes what is left of f (from its offset, at most limit
// bytes; -1: to its end) c's file body, and moves f's offset and r's
// limit past it as if it had been read. ok is false where it cannot (no
// offset, not a regular file, no file body here): the caller copies.
func (c *Ctx) sendOpenFile(f openFile, r io.Reader, limit int64) (n int64, ok bool) {
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	n = max(fi.Size()-off, 0)
	if limit >= 0 {
		n = min(n, limit)
	}
	if err := c.sendFD(f.Fd(), f.Name(), off, n); err != nil {
		return 0, false
	}
	f.Seek(off+n, io.SeekStart)
	if lr, isLimited := r.(*io.LimitedReader); isLimited {
		lr.N -= n
	}
	return n, true
}

// openFile is what ReadFrom needs of an open file.
type openFile interface {
	io.Reader
	io.Seeker
	Stat() (os.FileInfo, error)
	Fd() uintptr
	Name() string
}

// writeOnly hides ReadFrom from io.Copy.
type writeOnly struct{ io.Writer }
