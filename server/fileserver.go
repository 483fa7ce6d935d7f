package server

import (
	"fmt"
	"os"
	"time"

	"github.com/gust-http/gust/internal/fileserve"
)

// FileServerOptions configures FileServer. The zero value is useful.
type FileServerOptions struct {
	// Index is the file served for a directory's path (ending in '/');
	// "" means index.html. There are no directory listings: a directory
	// without one is 404.
	Index string
	// StripPrefix is removed from the start of the request path before it
	// is looked up; a path without it is 404.
	StripPrefix string
	// NoPrecompressed turns off serving a file's precompressed siblings
	// (name.br, name.zst, name.gz) to clients whose Accept-Encoding takes
	// them.
	NoPrecompressed bool
	// CheckInterval is how long a cached stat (and open file) is used
	// before the file is checked again; 0 means one second.
	CheckInterval time.Duration
	// MaxEntries bounds the cache (paths, found or not); 0 means 1024.
	MaxEntries int
}

// FileServer is a Handler that serves the files under one root directory
// (see NewFileServer for what it answers), with its cache of open files.
type FileServer struct {
	cache *fileserve.Cache
	opts  FileServerOptions
	index []byte
}

// NewFileServer returns a handler serving the files under root for GET
// and HEAD (405 otherwise): Content-Type from the extension (else
// sniffed), ETag (modification time and size) and Last-Modified,
// conditional requests (If-Match, If-Unmodified-Since, If-None-Match,
// If-Modified-Since: 304 and 412), Range with one range (206 and
// Content-Range) or several (multipart/byteranges), If-Range, 416 for
// ranges that cannot be satisfied, and a file's precompressed sibling
// (.br, .zst, .gz) when Accept-Encoding takes it, with Vary. Ranges then
// apply to the encoded file. Paths are percent-decoded once; a path with
// a ".." or "." segment, a NUL or a backslash is 404, and os.Root keeps
// every lookup (symbolic links included) inside root. On Linux over plain
// TCP the body goes out with sendfile(2).
func NewFileServer(root string, opts FileServerOptions) (*FileServer, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("file server: %w", err)
	}
	if opts.Index == "" {
		opts.Index = "index.html"
	}
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = time.Second
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = 1024
	}
	return &FileServer{cache: fileserve.NewCache(r, opts.CheckInterval, opts.MaxEntries), opts: opts, index: []byte(opts.Index)}, nil
}

// Close closes the cached files and the root. Responses in flight keep
// their files until they are sent.
func (fs *FileServer) Close() error { return fs.cache.Close() }

// ServeGust answers one request.
func (fs *FileServer) ServeGust(c *Ctx) {
	if m := string(c.Method()); m != "GET" && m != "HEAD" {
		c.SetHeader("Allow", "GET, HEAD")
		c.SetStatus(405)
		return
	}
	p := c.Path()
	if len(p) < len(fs.opts.StripPrefix) || string(p[:len(fs.opts.StripPrefix)]) != fs.opts.StripPrefix {
		c.SetStatus(404)
		return
	}
	p = p[len(fs.opts.StripPrefix):]
	var buf [512]byte
	name, dir, ok := fileserve.CleanPath(p, buf[:0])
	if !ok {
		c.SetStatus(404)
		return
	}
	now := time.Now().UnixNano()
	e := fs.cache.Get(name, now)
	defer e.Release()
	if e.Kind == fileserve.Dir {
		if !dir {
			// As net/http does: the directory's URL ends in '/', so that
			// relative links in its index resolve inside it.
			loc := append(append([]byte(nil), c.Path()...), '/')
			if q := c.Query(); q != nil {
				loc = append(append(loc, '?'), q...)
			}
			c.SetHeaderBytes([]byte("Location"), loc)
			c.SetStatus(301)
			return
		}
		if string(name) == "." {
			name = name[:0]
		} else {
			name = append(name, '/')
		}
		name = append(name, fs.index...)
		idx := fs.cache.Get(name, now)
		defer idx.Release()
		e = idx
	} else if dir {
		c.SetStatus(404) // a file's path with a '/' after it
		return
	}
	if e.Kind != fileserve.Regular {
		c.SetStatus(404)
		return
	}
	ctype := e.Type
	if !fs.opts.NoPrecompressed {
		if enc, sib, any := fs.cache.Precompressed(name, c.Header("Accept-Encoding"), now); any {
			c.SetHeader("Vary", "Accept-Encoding")
			if sib != nil {
				defer sib.Release()
				c.SetHeader("Content-Encoding", enc)
				e = sib
			}
		}
	}
	serveEntry(c, e, ctype)
}

// SendFile answers with the file at path as NewFileServer's handler would
// (validators, conditional requests, ranges), without a cache: the file is
// opened and checked for this response. A missing file, or anything but a
// regular file, is 404.
func (c *Ctx) SendFile(path string) {
	f, err := os.Open(path)
	if err != nil {
		c.SetStatus(404)
		return
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		c.SetStatus(404)
		return
	}
	e := fileserve.NewEntry(f, fi)
	defer e.Release() // the response holds its own reference while it sends
	serveEntry(c, e, e.Type)
}

// serveEntry answers with a file: conditions, then the whole file or
// its ranges.
func serveEntry(c *Ctx, e *fileserve.Entry, ctype string) {
	m := c.Method()
	req := fileserve.Request{
		GetOrHead:         string(m) == "GET" || string(m) == "HEAD",
		IfMatch:           c.Header("If-Match"),
		IfUnmodifiedSince: c.Header("If-Unmodified-Since"),
		IfNoneMatch:       c.Header("If-None-Match"),
		IfModifiedSince:   c.Header("If-Modified-Since"),
		IfRange:           c.Header("If-Range"),
		Range:             c.Header("Range"),
	}
	c.SetHeader("ETag", e.ETag)
	cond := fileserve.Evaluate(&req, e.ETag, e.Mod, e.LastMod)
	if cond == fileserve.NotModified {
		c.SetStatus(304) // the ETag is the validator: no Last-Modified (as net/http)
		return
	}
	c.SetHeader("Last-Modified", e.LastMod)
	if cond == fileserve.PreconditionFailed {
		c.SetStatus(412)
		return
	}
	c.SetHeader("Accept-Ranges", "bytes")
	var rbuf [4]fileserve.Range
	outcome := fileserve.RangeNone
	var rs []fileserve.Range
	if req.Range != nil && cond == fileserve.Serve {
		rs, outcome = fileserve.ParseRanges(req.Range, e.Size, rbuf[:0])
	}
	var num [64]byte
	switch outcome {
	case fileserve.RangeUnsatisfiable:
		c.SetStatus(416)
		c.SetHeaderBytes([]byte("Content-Range"), fileserve.AppendUnsatisfied(num[:0], e.Size))
		c.SetContentType("text/plain; charset=utf-8")
		c.WriteString("416 Range Not Satisfiable\n")
		return
	case fileserve.RangeSatisfiable:
		c.SetStatus(206)
		if len(rs) == 1 {
			c.SetHeaderBytes([]byte("Content-Range"), fileserve.AppendContentRange(num[:0], rs[0], e.Size))
			c.SetContentType(ctype)
			sendPart(c, e, rs[0].Start, rs[0].Length)
			return
		}
		c.SetContentType(fileserve.ByterangesType)
		c.attachFile(byterangesBody(e.File, rs, ctype, e.Size))
		return
	}
	c.SetContentType(ctype)
	sendPart(c, e, 0, e.Size)
}

// sendPart makes n bytes of e's file from off the body: copied from the
// cache for a small file, else a file body the connection sends.
func sendPart(c *Ctx, e *fileserve.Entry, off, n int64) {
	if e.Data != nil {
		c.dropFile()
		if c.head {
			c.headLen = n
			return
		}
		c.out = append(c.out[:0], e.Data[off:off+n]...)
		return
	}
	b := getFileBody(e.File)
	b.add(nil, off, n)
	c.attachFile(b)
}
