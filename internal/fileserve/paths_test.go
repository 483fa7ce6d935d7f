package fileserve

import (
	"path/filepath"
	"testing"
)

func TestCleanPath(t *testing.T) {
	tests := []struct {
		name, p, want string
		dir, ok       bool
	}{
		{"the root is the dot", "/", ".", true, true},
		{"a file is its name", "/a/b.txt", "a/b.txt", false, true},
		{"a trailing slash is a directory", "/a/b/", "a/b", true, true},
		{"empty segments are dropped", "//a///b", "a/b", false, true},
		{"escapes are decoded once", "/a%20b/%41", "a b/A", false, true},
		{"a double escape stays a name", "/%252e%252e", "%2e%2e", false, true},
		{"a relative path is refused", "a/b", "", false, false},
		{"the empty path is refused", "", "", false, false},
		{"a dot-dot segment is refused", "/a/../b", "", false, false},
		{"an escaped dot-dot is refused", "/%2e%2E/x", "", false, false},
		{"a dot segment is refused", "/a/./b", "", false, false},
		{"an escaped slash is refused", "/a%2fb", "", false, false},
		{"a NUL is refused", "/a%00", "", false, false},
		{"a backslash is refused", "/a\\b", "", false, false},
		{"an escaped backslash is refused", "/a%5cb", "", false, false},
		{"a short escape is refused", "/a%4", "", false, false},
		{"a bad escape is refused", "/a%zz", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, dir, ok := CleanPath([]byte(tt.p), nil)
			if string(name) != tt.want || dir != tt.dir || ok != tt.ok {
				t.Errorf("CleanPath(%q) = %q, %v, %v; want %q, %v, %v", tt.p, name, dir, ok, tt.want, tt.dir, tt.ok)
			}
		})
	}
}

// FuzzCleanPath: a path CleanPath accepts names a file inside the root:
// local, no NUL or backslash, no dot segments.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "/../x", "/%2e%2e/x", "/a//b/", "/%252e", "/a%2fb", "/a%00", "/a\\b", "/.", "/a/./b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		name, _, ok := CleanPath([]byte(p), nil)
		if !ok {
			return
		}
		s := string(name)
		if !filepath.IsLocal(s) || filepath.Clean(s) != s {
			t.Fatalf("%q cleaned to %q, which is not a clean local name", p, s)
		}
		for _, b := range name {
			if b == 0 || b == '\\' {
				t.Fatalf("%q cleaned to %q", p, s)
			}
		}
	})
}
