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
	limit := int64(-1)
	src := r
	if lr, ok := r.(*io.LimitedReader); ok {
		src, limit = lr.R, lr.N
	}
	// An *os.File, or what io.Copy hands over for one: os.File.WriteTo
	// copies through an unexported wrapper (without WriteTo) around it.
	f, ok := src.(openFile)
	c := w.c
	if !ok || !c.files || c.head || c.streaming || c.file != nil || len(c.out) > 0 || c.hijacked ||
		w.header.Get("Content-Type") == "" && !w.wroteHeader {
		return io.Copy(writeOnly{w}, r) // the first bytes may be sniffed for Content-Type
	}
	w.writeHeader()
	if !http1.BodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return io.Copy(writeOnly{w}, r)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return io.Copy(writeOnly{w}, r)
	}
	n := max(fi.Size()-off, 0)
	if limit >= 0 {
		n = min(n, limit)
	}
	if err := c.sendFD(f.Fd(), f.Name(), off, n); err != nil {
		return io.Copy(writeOnly{w}, r)
	}
	// As if read: the file's offset and the limit move past the bytes.
	f.Seek(off+n, io.SeekStart)
	if lr, ok := r.(*io.LimitedReader); ok {
		lr.N -= n
	}
	return n, nil
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
