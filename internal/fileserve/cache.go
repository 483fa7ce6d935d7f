package fileserve

import (
	"os"
	"sync"
	"time"
)

// Cache holds the open files and stat results of the paths under one
// root: an entry per path asked for (missing files too, so a miss costs no
// system call either), each checked against the file system again once it
// is older than the check interval (a stat: size, modification time and
// inode compared, the entry replaced when one changed), and at most a
// bounded number of entries, an arbitrary one dropped to make room. An
// entry holds its file open: responses in flight hold a reference of
// their own, so an entry dropped or replaced meanwhile closes its file
// when the last of them is done.
type Cache struct {
	root     *os.Root
	interval int64 // ns
	max      int
	mu       sync.RWMutex
	entries  map[string]*Entry
}

// NewCache returns a cache of the files under root, checked again after
// interval, holding at most max entries. The cache owns root: Close
// closes it.
func NewCache(root *os.Root, interval time.Duration, max int) *Cache {
	return &Cache{root: root, interval: int64(interval), max: max, entries: make(map[string]*Entry)}
}

// Get returns the entry for name (clean, relative to the root, as
// CleanPath makes it; "." for the root itself) at time now (Unix
// nanoseconds), made or checked again if needed, holding its file: the
// caller calls Release when done with it. A hit takes the read lock only
// and allocates nothing; checks and misses take the write lock, so a path
// is opened once.
func (fc *Cache) Get(name []byte, now int64) *Entry {
	fc.mu.RLock()
	e := fc.entries[string(name)]
	if e != nil && now-e.checked.Load() < fc.interval {
		e.Hold()
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
		e.Hold()
		return e
	}
	fresh := fc.load(key)
	fresh.checked.Store(now)
	if e == nil && len(fc.entries) >= fc.max {
		for k, victim := range fc.entries {
			delete(fc.entries, k)
			victim.Release()
			break
		}
	}
	fc.entries[key] = fresh
	if e != nil {
		e.Release()
	}
	fresh.Hold()
	return fresh
}

// Peek returns the entry cached for name as it is, neither checked nor
// held, or nil: for tests and diagnostics.
func (fc *Cache) Peek(name string) *Entry {
	fc.mu.RLock()
	defer fc.mu.RUnlock()
	return fc.entries[name]
}

// unchanged stats name and compares it with e.
func (fc *Cache) unchanged(name string, e *Entry) bool {
	fi, err := fc.root.Stat(name)
	if err != nil {
		return e.Kind == Missing
	}
	switch {
	case fi.IsDir():
		return e.Kind == Dir
	case !fi.Mode().IsRegular():
		return e.Kind == Missing
	}
	return e.Kind == Regular && fi.Size() == e.Size && fi.ModTime().UnixNano() == e.modNano && inode(fi) == e.ino
}

// load opens name and makes its entry. Anything but a regular file or a
// directory (devices, sockets), and anything os.Root refuses (a path out
// of the root, through a symbolic link or otherwise), is missing.
func (fc *Cache) load(name string) *Entry {
	e := &Entry{}
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
		e.Kind = Dir
		return e
	case !fi.Mode().IsRegular():
		f.Close()
		return e
	}
	e.Kind = Regular
	e.fill(f, fi)
	return e
}

// Close drops every entry and closes the root. Responses in flight keep
// their files until they release them.
func (fc *Cache) Close() error {
	fc.mu.Lock()
	for k, e := range fc.entries {
		delete(fc.entries, k)
		e.Release()
	}
	fc.mu.Unlock()
	return fc.root.Close()
}
