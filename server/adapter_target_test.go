package server

import (
	"net/url"
	"testing"
)

// FuzzPlainTargetMatchesNetURL checks the adapter's fast path against
// url.ParseRequestURI: whatever it accepts must parse to the same URL.
func FuzzPlainTargetMatchesNetURL(f *testing.F) {
	for _, s := range []string{"/", "/a/b-c_d.e~f", "/x?y=1&z=%20", "/x?", "//host/x", "/a%20b", "/a b", "/a;b", "*", "http://h/x", "/q?a#frag", "/é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		var got url.URL
		if !parsePlainTarget(target, &got) {
			return
		}
		want, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("fast path took %q, which url.ParseRequestURI refuses: %v", target, err)
		}
		if got != *want {
			t.Fatalf("%q: fast path %#v, url.ParseRequestURI %#v", target, got, *want)
		}
	})
}
