package server

import (
	"path/filepath"
	"testing"
)

// FuzzParseRanges: whatever the Range field, the ranges returned lie in
// the representation, are not empty, add up to at most its size and are
// at most maxRanges; nothing panics.
func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"bytes=0-0", "bytes=-5", "bytes=5-", "bytes=0-1,3-4", "bytes= 1 - 2 ,, -3",
		"bytes=9-5", "bytes=abc", "items=0-1", "BYTES=0-1", "bytes=-0", "bytes=99999999999999999999-"} {
		f.Add(s, int64(100))
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, v string, size int64) {
		if size < 0 {
			size = -size
		}
		size %= 1 << 40
		rs, outcome := parseRanges([]byte(v), size, nil)
		if outcome != rangeSatisfiable {
			if len(rs) != 0 {
				t.Fatalf("%q: %v returned with outcome %d", v, rs, outcome)
			}
			return
		}
		if len(rs) == 0 || len(rs) > maxRanges {
			t.Fatalf("%q: %d ranges", v, len(rs))
		}
		var sum int64
		for _, r := range rs {
			if r.start < 0 || r.length <= 0 || r.start+r.length > size {
				t.Fatalf("%q size %d: range %+v", v, size, r)
			}
			sum += r.length
		}
		if sum > size {
			t.Fatalf("%q size %d: ranges add up to %d", v, size, sum)
		}
	})
}

// FuzzCleanPath: a path cleanPath accepts names a file inside the root:
// local, no NUL or backslash, no dot segments.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "/../x", "/%2e%2e/x", "/a//b/", "/%252e", "/a%2fb", "/a%00", "/a\\b", "/.", "/a/./b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		name, _, ok := cleanPath([]byte(p), nil)
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

// FuzzAcceptQ: q-values stay within 0 and 1000 whatever the field.
func FuzzAcceptQ(f *testing.F) {
	for _, s := range []string{"gzip, br;q=0.5", "*;q=0", "br;q=1.0001", "gzip;q=", ";;,,", "x-gzip;Q=0.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, c := range siblingEncodings {
			if q := acceptQ([]byte(v), c.coding); q < 0 || q > 1000 {
				t.Fatalf("%q: q %d for %s", v, q, c.coding)
			}
		}
	})
}
