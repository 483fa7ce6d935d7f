package server

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/gust-http/gust/internal/fileserve"
)

// A response body taken from a file: the Ctx holds it until the response
// head is written, then the connection sends it, with sendfile(2) on plain
// TCP or read into a buffer and written through the transport (TLS). An
// HTTP/2 stream reads it a piece at a time (next) as the windows and the
// socket take it (h2file_linux.go). The portable fallback, which cannot
// send a file body later, has it read into the Ctx's body when attached.

// fileSeg is one piece of a file body: the bytes body.bytes[lo:hi] (a
// multipart boundary and part head, or the closing boundary), then n
// bytes of the file from off.
type fileSeg struct {
	lo, hi int
	off, n int64
}

// fileBody is a response body made of a file's ranges and the bytes
// between them, and how far its sending got.
type fileBody struct {
	ref   *fileserve.File // held while the body lives
	segs  []fileSeg
	bytes []byte
	total int64
	// Progress: the segment being sent, and whether its bytes have been
	// queued for output already.
	i      int
	queued bool
	// corked: the socket is corked for this body (filesend_linux.go).
	corked bool
}

var fileBodyPool = sync.Pool{New: func() any { return new(fileBody) }}

// getFileBody returns an empty body of ref's file, holding a reference
// to it until release.
func getFileBody(ref *fileserve.File) *fileBody {
	b := fileBodyPool.Get().(*fileBody)
	ref.Hold()
	b.ref = ref
	return b
}

// add appends a segment: pre, then n bytes of the file from off.
func (b *fileBody) add(pre []byte, off, n int64) {
	lo := len(b.bytes)
	b.bytes = append(b.bytes, pre...)
	b.segs = append(b.segs, fileSeg{lo: lo, hi: len(b.bytes), off: off, n: n})
	b.total += int64(len(pre)) + n
}

// byterangesBody is the multipart/byteranges body of ranges of ref's file
// of size bytes, whose parts are of type ctype.
func byterangesBody(ref *fileserve.File, ranges []fileserve.Range, ctype string, size int64) *fileBody {
	b := getFileBody(ref)
	var pre []byte
	for i, r := range ranges {
		pre = fileserve.AppendPartHead(pre[:0], i, r, ctype, size)
		b.add(pre, r.Start, r.Length)
	}
	b.add(fileserve.AppendClosingBoundary(pre[:0]), 0, 0)
	return b
}

// startsWithFile reports whether b's first bytes come from the file (a
// whole file or one range): what is written before it may wait for them.
func (b *fileBody) startsWithFile() bool {
	return len(b.segs) > 0 && b.segs[0].hi == b.segs[0].lo && b.segs[0].n > 0
}

// release drops the file and returns b to its pool.
func (b *fileBody) release() {
	if b.ref != nil {
		b.ref.Drop()
	}
	b.ref = nil
	b.segs = b.segs[:0]
	b.bytes = b.bytes[:0]
	b.total, b.i, b.queued, b.corked = 0, 0, false, false
	if cap(b.bytes) <= 64<<10 && cap(b.segs) <= 1024 {
		fileBodyPool.Put(b)
	}
}

// errFileTruncated says the file ended before the response did (it was
// truncated while being sent): the connection must close.
var errFileTruncated = errors.New("server: file shorter than its response")

// next returns the body's next piece, for a sender that frames it itself
// (HTTP/2): the bytes before a range as they are, or up to len(buf) bytes
// of the file read into buf. It returns nil once the body is all given,
// and errFileTruncated (or the read's error) if the file ends early.
func (b *fileBody) next(buf []byte) ([]byte, error) {
	if b.done() {
		return nil, nil
	}
	s := &b.segs[b.i] // done stepped past finished segments: this one has bytes left
	if !b.queued {
		b.queued = true
		if s.hi > s.lo {
			return b.bytes[s.lo:s.hi], nil
		}
	}
	want := int(min(s.n, int64(len(buf))))
	n, err := b.ref.ReadAt(buf[:want], s.off)
	if n < want {
		if err == nil || err == io.EOF {
			err = errFileTruncated
		}
		return nil, err
	}
	s.off += int64(n)
	s.n -= int64(n)
	return buf[:n], nil
}

// done reports whether next has given the whole body, stepping past the
// segments it finished.
func (b *fileBody) done() bool {
	for b.i < len(b.segs) {
		s := &b.segs[b.i]
		if s.n > 0 || !b.queued && s.hi > s.lo {
			return false
		}
		b.i++
		b.queued = false
	}
	return true
}

// appendTo reads the whole body into dst, for places that send bodies
// from memory.
func (b *fileBody) appendTo(dst []byte) ([]byte, error) {
	for _, s := range b.segs {
		dst = append(dst, b.bytes[s.lo:s.hi]...)
		start := len(dst)
		dst = append(dst, make([]byte, s.n)...)
		if n, err := b.ref.ReadAt(dst[start:], s.off); int64(n) < s.n {
			if err == nil || err == io.EOF {
				err = errFileTruncated
			}
			return dst[:start+n], err
		}
	}
	return dst, nil
}

// attachFile makes b the response body. Where the connection cannot send
// it later (!c.files: the portable fallback, or an HTTP/1.1 response
// already streaming), it is read into the body now; a file that fails to
// read then makes a 500.
func (c *Ctx) attachFile(b *fileBody) {
	if c.file != nil {
		c.file.release()
		c.file = nil
	}
	c.out = c.out[:0]
	if c.head {
		c.headLen = b.total
		b.release()
		return
	}
	if c.files && !c.streaming {
		c.file = b
		return
	}
	var err error
	c.out, err = b.appendTo(c.out)
	b.release()
	if err != nil && !c.streaming {
		c.out = c.out[:0]
		c.status = 500
	}
}

// fileIntoOut reads the file body into out, for a handler that writes
// after attaching one.
func (c *Ctx) fileIntoOut() {
	b := c.file
	c.file = nil
	var err error
	c.out, err = b.appendTo(c.out)
	b.release()
	if err != nil {
		c.closeConn = true // the body is short of what the head will say: end there
	}
}

// dropFile forgets a file body the handler replaced.
func (c *Ctx) dropFile() {
	if c.file != nil {
		c.file.release()
		c.file = nil
	}
}

// SendFileRange answers with n bytes of f from off as the body (n < 0:
// to the end of the file), leaving the status and headers as the handler
// set them. The server takes a reference of its own (a duplicate of the
// descriptor), so the caller may close f once SendFileRange returns. On
// plain TCP the body goes out with sendfile(2) after the handler returns,
// without being read into memory; over TLS and HTTP/2 it is read a piece
// at a time as the client takes it.
func (c *Ctx) SendFileRange(f *os.File, off, n int64) error {
	if n < 0 {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		n = max(st.Size()-off, 0)
	}
	if !c.files || c.head || c.streaming {
		// Read now (or not at all, for HEAD): f is the caller's.
		b := getFileBody(fileserve.Borrow(f)) // never closed here
		b.add(nil, off, n)
		c.attachFile(b)
		return nil
	}
	return c.sendFD(f.Fd(), f.Name(), off, n)
}

// sendFD attaches n bytes from off of the open file fd as the body, on a
// duplicate of fd (the connection can send it later: c.files).
func (c *Ctx) sendFD(fd uintptr, name string, off, n int64) error {
	ref, err := dupFile(fd, name)
	if err != nil {
		return err
	}
	b := getFileBody(ref)
	ref.Drop() // b holds it
	b.add(nil, off, n)
	c.attachFile(b)
	return nil
}
