package fileserve

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// newTestCache is a cache over dir, checked every second, closed at the
// end of the test.
func newTestCache(t testing.TB, dir string) *Cache {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	fc := NewCache(root, time.Second, 16)
	t.Cleanup(func() { fc.Close() })
	return fc
}

func writeFile(t testing.TB, path string, body []byte) {
	t.Helper()
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCacheKinds(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "page.html"), []byte("<p>hello</p>"))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	fc := newTestCache(t, dir)
	now := time.Now().UnixNano()
	tests := []struct {
		name string
		path string
		kind Kind
	}{
		{"a regular file", "page.html", Regular},
		{"a directory", "sub", Dir},
		{"the root", ".", Dir},
		{"a missing file", "nothing", Missing},
		{"a link out of the root", "out", Missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := fc.Get([]byte(tt.path), now)
			defer e.Release()
			if e.Kind != tt.kind {
				t.Errorf("%s: kind %d, want %d", tt.path, e.Kind, tt.kind)
			}
		})
	}
	e := fc.Get([]byte("page.html"), now)
	defer e.Release()
	if e.Size != 12 || string(e.Data) != "<p>hello</p>" || e.Type != "text/html; charset=utf-8" {
		t.Errorf("entry: size %d, data %q, type %q", e.Size, e.Data, e.Type)
	}
	if e.ETag == "" || e.ETag[0] != '"' || e.LastMod == "" || e.Mod.Nanosecond() != 0 {
		t.Errorf("validators: ETag %s, Last-Modified %q, time %v", e.ETag, e.LastMod, e.Mod)
	}
}

func TestCacheSniffsWithoutAnExtension(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "noext"), []byte("%PDF-1.7 ..."))
	fc := newTestCache(t, dir)
	e := fc.Get([]byte("noext"), time.Now().UnixNano())
	defer e.Release()
	if e.Type != "application/pdf" {
		t.Errorf("type %q, want application/pdf", e.Type)
	}
}

func TestCacheSeesChangesAfterItsInterval(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	writeFile(t, path, []byte("one"))
	fc := newTestCache(t, dir)
	now := time.Now().UnixNano()
	first := fc.Get([]byte("f.txt"), now)
	first.Release()
	writeFile(t, path, []byte("three"))
	if e := fc.Get([]byte("f.txt"), now+int64(time.Second/2)); e != first {
		t.Error("the entry was checked again within the interval")
	} else {
		e.Release()
	}
	e := fc.Get([]byte("f.txt"), now+int64(2*time.Second))
	defer e.Release()
	if e == first || string(e.Data) != "three" || e.ETag == first.ETag {
		t.Errorf("after the interval: data %q, ETag %s (was %s)", e.Data, e.ETag, first.ETag)
	}
	again := fc.Get([]byte("f.txt"), now+int64(4*time.Second))
	defer again.Release()
	if again != e {
		t.Error("an unchanged file's entry was replaced")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	gone := fc.Get([]byte("f.txt"), now+int64(6*time.Second))
	defer gone.Release()
	if gone.Kind != Missing {
		t.Errorf("a removed file is kind %d", gone.Kind)
	}
}

// TestCacheKeepsFilesOpenForTheirHolders: an entry dropped from a full
// cache, or replaced, keeps its file open until its holder releases it.
func TestCacheKeepsFilesOpenForTheirHolders(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("x"), SmallFile+1) // not kept in memory
	for _, name := range []string{"a", "b", "c"} {
		writeFile(t, filepath.Join(dir, name), body)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	fc := NewCache(root, time.Second, 2)
	now := time.Now().UnixNano()
	held := fc.Get([]byte("a"), now)
	if held.Data != nil || held.File.Refs() != 2 {
		t.Fatalf("a held entry: data %d bytes, %d references; want none and 2", len(held.Data), held.File.Refs())
	}
	for _, name := range []string{"b", "c"} {
		fc.Get([]byte(name), now).Release()
	}
	fc.Close()
	buf := make([]byte, 4)
	if _, err := held.File.ReadAt(buf, 0); err != nil {
		t.Fatalf("a held file was closed under its holder: %v", err)
	}
	held.Release()
	if held.File.Refs() != 0 {
		t.Errorf("%d references after the last release", held.File.Refs())
	}
	if _, err := held.File.ReadAt(buf, 0); err == nil {
		t.Error("the file is still open after its last reference")
	}
}

func TestBorrowedFilesStayOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, []byte("data"))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := Borrow(f)
	r.Hold() // a response body's reference
	r.Drop()
	if _, err := f.ReadAt(make([]byte, 4), 0); err != nil {
		t.Errorf("a borrowed file was closed: %v", err)
	}
	if r.FD() != -1 {
		t.Errorf("a borrowed file's FD is %d, want -1", r.FD())
	}
}

// TestHitDoesNotAllocate: a cached file's lookup and its request's
// decisions allocate nothing.
func TestHitDoesNotAllocate(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.css"), []byte("body{}"))
	fc := newTestCache(t, dir)
	now := time.Now().UnixNano()
	fc.Get([]byte("a.css"), now).Release()
	path := []byte("/a.css")
	req := Request{GetOrHead: true, IfNoneMatch: []byte(`"x"`), Range: []byte("bytes=0-1,3-4")}
	allocs := testing.AllocsPerRun(100, func() {
		var buf [64]byte
		name, _, _ := CleanPath(path, buf[:0])
		e := fc.Get(name, now)
		if Evaluate(&req, e.ETag, e.Mod, e.LastMod) == Serve {
			var rs [4]Range
			ParseRanges(req.Range, e.Size, rs[:0])
		}
		e.Release()
	})
	if allocs != 0 {
		t.Errorf("%v allocations a hit, want 0", allocs)
	}
}

func BenchmarkCacheHit(b *testing.B) {
	dir := b.TempDir()
	writeFile(b, filepath.Join(dir, "a.css"), []byte("body{}"))
	fc := newTestCache(b, dir)
	now := time.Now().UnixNano()
	name := []byte("a.css")
	b.ReportAllocs()
	for b.Loop() {
		fc.Get(name, now).Release()
	}
}

func BenchmarkParseRanges(b *testing.B) {
	v := []byte("bytes=0-99, 200-299, -100")
	var rs [4]Range
	b.ReportAllocs()
	for b.Loop() {
		ParseRanges(v, 10000, rs[:0])
	}
}
