package fileserve

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"sync/atomic"
	"time"
)

// Kind says what a path names.
type Kind uint8

const (
	Missing Kind = iota // nothing, or nothing the server may serve
	Regular             // a regular file
	Dir                 // a directory
)

// Entry is what the cache knows about one path. Its exported fields are
// set when it is made and never change; the cache checks them against the
// file system again once they are older than its interval.
type Entry struct {
	Kind    Kind
	File    *File     // Regular: the open file, the cache's reference
	Size    int64     // Regular: the file's size
	Mod     time.Time // the modification time in whole seconds, as Last-Modified says
	ETag    string    // quoted: "mtime-size" in hex
	LastMod string    // the Last-Modified value
	Type    string    // the Content-Type, from the extension, else sniffed
	// Data holds a small file's bytes (up to SmallFile), answered with
	// the head in one write instead of a sendfile(2) after it.
	Data []byte

	modNano int64
	ino     uint64
	checked atomic.Int64
}

// SmallFile is the largest file whose bytes an Entry keeps: with 1024
// entries, at most 16 MiB. Written with its head, such a file costs one
// system call, where sendfile(2) after the head costs two.
const SmallFile = 16 << 10

// NewEntry makes the Regular entry of the open file f, whose stat is fi,
// holding f (the caller releases the entry when done with it).
func NewEntry(f *os.File, fi os.FileInfo) *Entry {
	e := &Entry{Kind: Regular}
	e.fill(f, fi)
	return e
}

// fill sets a regular file's entry from its open file and stat.
func (e *Entry) fill(f *os.File, fi os.FileInfo) {
	e.File = NewFile(f)
	e.Size = fi.Size()
	e.modNano = fi.ModTime().UnixNano()
	e.Mod = fi.ModTime().Truncate(time.Second)
	e.ino = inode(fi)
	e.ETag = `"` + strconv.FormatInt(e.modNano, 16) + "-" + strconv.FormatInt(e.Size, 16) + `"`
	e.LastMod = fi.ModTime().UTC().Format(http.TimeFormat)
	e.Type = contentType(f, fi.Name())
	if e.Size <= SmallFile {
		data := make([]byte, e.Size)
		if n, err := f.ReadAt(data, 0); n == len(data) && (err == nil || errors.Is(err, io.EOF)) {
			e.Data = data
		}
	}
}

// contentType is the type for a file's extension, or sniffed from its
// first 512 bytes, as net/http's ServeContent does.
func contentType(f *os.File, name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	var buf [512]byte
	n, err := f.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		n = 0
	}
	return http.DetectContentType(buf[:n])
}

// Hold takes a reference to the entry's file, which Release gives back.
func (e *Entry) Hold() {
	if e.File != nil {
		e.File.Hold()
	}
}

// Release gives back a reference Hold, Cache.Get or NewEntry took.
func (e *Entry) Release() {
	if e.File != nil {
		e.File.Drop()
	}
}
