package fileserve

import (
	"os"
	"sync/atomic"
)

// File is an open file shared by the cache and the responses sending it:
// the last reference dropped closes it, so an entry the cache drops while
// a response is in flight stays open until that response is done.
type File struct {
	f    *os.File
	fd   int
	refs atomic.Int32
}

// NewFile returns a File over f holding one reference, the caller's.
func NewFile(f *os.File) *File {
	r := &File{f: f, fd: int(f.Fd())}
	r.refs.Store(1)
	return r
}

// Borrow returns a File over f, which stays the caller's: its first
// reference belongs to no one, so the Hold and Drop of its holders never
// close f. Its FD is -1: it is read with ReadAt, not handed to sendfile(2).
func Borrow(f *os.File) *File {
	r := &File{f: f, fd: -1}
	r.refs.Store(1)
	return r
}

// Hold takes a reference, which Drop gives back.
func (r *File) Hold() { r.refs.Add(1) }

// Drop gives back a reference; the last closes the file.
func (r *File) Drop() {
	if r.refs.Add(-1) == 0 {
		r.f.Close()
	}
}

// Refs is the number of references held, for tests and diagnostics.
func (r *File) Refs() int32 { return r.refs.Load() }

// FD is the file's descriptor, for sendfile(2); -1 for a borrowed file.
func (r *File) FD() int { return r.fd }

// ReadAt reads len(p) bytes from off, as os.File.ReadAt does.
func (r *File) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }
