package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The file server's cache of open files and stat results: an entry per
// path asked for (missing files too, so a miss costs no system call
// either), each checked against the file system again once it is older
// than the check interval (a stat: size, modification time and inode
// compared, the entry replaced when one changed), and at most a bounded
// number of entries, an arbitrary one dropped to make room. An entry
// holds its file open: responses in flight hold a reference of their own
// (fileRef), so an entry dropped or replaced meanwhile closes its file
// when the last of them is done.

// entryKind says what a path names.
type entryKind uint8

const (
	entryMissing entryKind = iota // nothing, or nothing the server may serve
	entryFile
	entryDir
)

// fileEntry is what the cache knows about one path. Its fields are set
// when it is made and never change, but checked.
type fileEntry struct {
	kind    entryKind
	ref     *fileRef // entryFile: the open file, the cache's reference
	size    int64
	mod     time.Time // whole seconds, as Last-Modified says
	modNano int64
	ino     uint64
	etag    string // quoted: "mtime-size" in hex
	lastMod string // the Last-Modified value
	ctype   string // from the extension, else sniffed
	// data holds a small file's bytes (up to smallFile), answered with
	// the head in one write instead of a sendfile(2) after it.
	data    []byte
	checked atomic.Int64
}

// fileCache is the cache of one FileServer.
type fileCache struct {
	root     *os.Root
	interval int64 // ns
	max      int
	mu       sync.RWMutex
	entries  map[string]*fileEntry
}

func newFileCache(root *os.Root, interval time.Duration, max int) *fileCache {
	return &fileCache{root: root, interval: int64(interval), max: max, entries: make(map[string]*fileEntry)}
}

// get returns the entry for name (clean, relative to the root; "." for
// the root itself), made or checked again if needed, holding its file:
// the caller calls release when done with it. A hit takes the read lock
// only; checks and misses take the write lock, so a path is opened once.
func (fc *fileCache) get(name []byte, now int64) *fileEntry {
	fc.mu.RLock()
	e := fc.entries[string(name)]
	if e != nil && now-e.checked.Load() < fc.interval {
		e.hold()
		fc.mu.RUnlock()
		return e
	}
	fc.mu.RUnlock()
	key := string(name)
	fc.mu.Lock()
	defer fc.mu.Unlock()
	e = fc.entries[key]
	if e != nil && (now-e.checked.Load() < fc.interval || fc.unchanged(key, e)) {
		e.checked.Store(now)
		e.hold()
		return e
	}
	fresh := fc.load(key)
	fresh.checked.Store(now)
	if e == nil && len(fc.entries) >= fc.max {
		for k, victim := range fc.entries {
			delete(fc.entries, k)
			victim.release()
			break
		}
	}
	fc.entries[key] = fresh
	if e != nil {
		e.release()
	}
	fresh.hold()
	return fresh
}

// unchanged stats name and compares it with e.
func (fc *fileCache) unchanged(name string, e *fileEntry) bool {
	fi, err := fc.root.Stat(name)
	if err != nil {
		return e.kind == entryMissing
	}
	switch {
	case fi.IsDir():
		return e.kind == entryDir
	case !fi.Mode().IsRegular():
		return e.kind == entryMissing
	}
	return e.kind == entryFile && fi.Size() == e.size && fi.ModTime().UnixNano() == e.modNano && inode(fi) == e.ino
}

// load opens name and makes its entry. Anything but a regular file or a
// directory (devices, sockets), and anything os.Root refuses (a path out
// of the root, through a symbolic link or otherwise), is missing.
func (fc *fileCache) load(name string) *fileEntry {
	e := &fileEntry{}
	f, err := fc.root.Open(name)
	if err != nil {
		return e
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return e
	case fi.IsDir():
		f.Close()
		e.kind = entryDir
		return e
	case !fi.Mode().IsRegular():
		f.Close()
		return e
	}
	e.kind = entryFile
	fillEntry(e, f, fi)
	return e
}

// fillEntry sets a regular file's entry from its open file and stat.
func fillEntry(e *fileEntry, f *os.File, fi os.FileInfo) {
	e.ref = newFileRef(f)
	e.size = fi.Size()
	e.modNano = fi.ModTime().UnixNano()
	e.mod = fi.ModTime().Truncate(time.Second)
	e.ino = inode(fi)
	e.etag = `"` + strconv.FormatInt(e.modNano, 16) + "-" + strconv.FormatInt(e.size, 16) + `"`
	e.lastMod = fi.ModTime().UTC().Format(http.TimeFormat)
	e.ctype = contentType(f, fi.Name())
	if e.size <= smallFile {
		data := make([]byte, e.size)
		if n, err := f.ReadAt(data, 0); n == len(data) && (err == nil || errors.Is(err, io.EOF)) {
			e.data = data
		}
	}
}

// smallFile is the largest file the cache keeps the bytes of: with
// MaxEntries 1024, at most 16 MiB. Written with its head, such a file
// costs one system call, where sendfile(2) after the head costs two.
const smallFile = 16 << 10

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

// hold takes a reference to the entry's file, which release drops.
func (e *fileEntry) hold() {
	if e.ref != nil {
		e.ref.hold()
	}
}

func (e *fileEntry) release() {
	if e.ref != nil {
		e.ref.drop()
	}
}

// close drops every entry (FileServer's Close).
func (fc *fileCache) close() {
	fc.mu.Lock()
	for k, e := range fc.entries {
		delete(fc.entries, k)
		e.release()
	}
	fc.mu.Unlock()
}
