package websocket

import (
	"testing"
	"unicode/utf8"
)

func TestUTF8EverySplit(t *testing.T) {
	inputs := []string{
		"", "ascii only", "κόσμε", "\u00e9\u20ac\U0001F600\U0010FFFF", "\uFEFF\uFFFD",
		"\xed\x9f\xbf", "\xee\x80\x80", // around the surrogates
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xc0\xaf", "\xc1\xbf", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\x80", "a\xe2\x82", "\xe2\x82\xac\xe2", "\xf0\x9f\x98",
		"hello\xce\xbaworld\xed\xa0\x80edited",
	}
	for _, s := range inputs {
		want := utf8.ValidString(s)
		for i := 0; i <= len(s); i++ {
			for j := i; j <= len(s); j++ {
				var v UTF8
				ok := v.Write([]byte(s[:i])) && v.Write([]byte(s[i:j])) && v.Write([]byte(s[j:]))
				if got := ok && v.Done(); got != want {
					t.Fatalf("%q split at %d,%d: got %v, want %v", s, i, j, got, want)
				}
			}
		}
	}
}

func TestUTF8FailsFast(t *testing.T) {
	cases := []struct {
		name   string
		pieces []string
		failAt int // the piece whose Write must return false
	}{
		{"a bad lead byte", []string{"ok", "\xff", "more"}, 1},
		{"a surrogate's second byte", []string{"\xed", "\xa0", "\x80"}, 1},
		{"beyond U+10FFFF on the second byte", []string{"\xf4", "\x90"}, 1},
		{"an overlong form on the second byte", []string{"\xe0", "\x80"}, 1},
		{"a truncated code point then ASCII", []string{"\xe2\x82", "a"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v UTF8
			for i, p := range tc.pieces {
				if ok := v.Write([]byte(p)); ok != (i < tc.failAt) {
					t.Fatalf("piece %d: Write = %v", i, ok)
				}
				if i == tc.failAt {
					break
				}
			}
			if v.Write([]byte("a")) || v.Done() {
				t.Fatal("not sticky")
			}
			v.Reset()
			if !v.Write([]byte("fresh")) || !v.Done() {
				t.Fatal("Reset")
			}
		})
	}
}
