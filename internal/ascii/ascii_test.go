package ascii

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLower(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := byte(c)
		if 'A' <= c && c <= 'Z' {
			want = byte(c) + 32
		}
		if got := Lower(byte(c)); got != want {
			t.Errorf("Lower(%#x) = %#x, want %#x", c, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name       string
		s, lower   string
		equal      bool
		hasPrefix  bool
		equalFoldB string // a mixed-case spelling of lower, for EqualFold
	}{
		{"an exact match is equal", "host", "host", true, true, "HOST"},
		{"upper case is folded", "Content-Length", "content-length", true, true, "CONTENT-length"},
		{"a longer string only has the prefix", "https://x", "https://", false, true, "HTTPS://"},
		{"a shorter string has neither", "http", "http:", false, false, "HTTP:"},
		{"a different letter is not equal", "hosu", "host", false, false, "Host"},
		{"punctuation is not folded", "a@", "a`", false, false, "A`"},
		{"brackets are not folded", "[", "{", false, false, "{"},
		{"UTF-8 is not folded", "Ä", "ä", false, false, "ä"},
		{"the empty string equals itself", "", "", true, true, ""},
		{"everything has the empty prefix", "x", "", false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EqualLower(tt.s, tt.lower); got != tt.equal {
				t.Errorf("EqualLower(%q, %q) = %v", tt.s, tt.lower, got)
			}
			if got := EqualLower([]byte(tt.s), tt.lower); got != tt.equal {
				t.Errorf("EqualLower([]byte(%q), %q) = %v", tt.s, tt.lower, got)
			}
			if got := HasPrefixLower(tt.s, tt.lower); got != tt.hasPrefix {
				t.Errorf("HasPrefixLower(%q, %q) = %v", tt.s, tt.lower, got)
			}
			if got := HasPrefixLower([]byte(tt.s), tt.lower); got != tt.hasPrefix {
				t.Errorf("HasPrefixLower([]byte(%q), %q) = %v", tt.s, tt.lower, got)
			}
			if got := EqualFold(tt.s, tt.equalFoldB); got != tt.equal {
				t.Errorf("EqualFold(%q, %q) = %v", tt.s, tt.equalFoldB, got)
			}
			if got := EqualFold([]byte(tt.s), tt.equalFoldB); got != tt.equal {
				t.Errorf("EqualFold([]byte(%q), %q) = %v", tt.s, tt.equalFoldB, got)
			}
		})
	}
}

func TestToLower(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"already-lower", "already-lower"},
		{"Sec-WebSocket-Protocol", "sec-websocket-protocol"},
		{"X-ÄÖ", "x-ÄÖ"},
		{"@[`{", "@[`{"},
	}
	for _, tt := range tests {
		if got := ToLower(tt.in); got != tt.want {
			t.Errorf("ToLower(%q) = %q, want %q", tt.in, got, tt.want)
		}
		b := []byte(tt.in)
		if got := string(LowerInPlace(b)); got != tt.want {
			t.Errorf("LowerInPlace(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	s := "Host"
	if ToLower(s) != "host" || s != "Host" {
		t.Errorf("ToLower changed its argument: %q", s)
	}
}

// isASCII reports whether s holds only ASCII bytes, where this package and
// the strings package must agree.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func FuzzFold(f *testing.F) {
	f.Add("Content-Length", "content-length")
	f.Add("HOST", "hoSt")
	f.Add("a@[`{z", "A@[`{Z")
	f.Add("", "")
	f.Add("é", "É")
	f.Fuzz(func(t *testing.T, a, b string) {
		lowerB := ToLower(b)
		eq := EqualFold(a, b)
		if eq != EqualFold([]byte(a), b) {
			t.Fatalf("EqualFold differs between string and []byte for %q, %q", a, b)
		}
		if eq != EqualLower(a, lowerB) || eq != EqualLower([]byte(a), lowerB) {
			t.Fatalf("EqualFold(%q, %q) = %v, EqualLower against %q differs", a, b, eq, lowerB)
		}
		if p := HasPrefixLower(a, lowerB); p != (len(a) >= len(b) && EqualFold(a[:len(b)], b)) {
			t.Fatalf("HasPrefixLower(%q, %q) = %v", a, lowerB, p)
		}
		if string(LowerInPlace([]byte(b))) != lowerB {
			t.Fatalf("LowerInPlace(%q) != ToLower(%q) = %q", b, b, lowerB)
		}
		if len(lowerB) != len(b) {
			t.Fatalf("ToLower(%q) changed the length", b)
		}
		if !isASCII(a) || !isASCII(b) {
			return // strings folds Unicode; this package folds ASCII only
		}
		if want := strings.EqualFold(a, b); eq != want {
			t.Fatalf("EqualFold(%q, %q) = %v, strings.EqualFold says %v", a, b, eq, want)
		}
		if want := strings.ToLower(b); lowerB != want {
			t.Fatalf("ToLower(%q) = %q, strings.ToLower says %q", b, lowerB, want)
		}
	})
}

func TestNoAllocations(t *testing.T) {
	name := []byte("Transfer-Encoding")
	allocs := testing.AllocsPerRun(100, func() {
		_ = EqualLower(name, "transfer-encoding")
		_ = EqualFold(name, "TRANSFER-encoding")
		_ = HasPrefixLower(name, "transfer")
		_ = LowerInPlace(name)
		_ = ToLower("already-lower")
	})
	if allocs != 0 {
		t.Errorf("%v allocations a run, want 0", allocs)
	}
}

var sink bool

func BenchmarkEqualLower(b *testing.B) {
	name := []byte("Transfer-Encoding")
	b.ReportAllocs()
	for b.Loop() {
		sink = EqualLower(name, "transfer-encoding")
	}
}

func BenchmarkEqualFold(b *testing.B) {
	name := "Transfer-Encoding"
	b.ReportAllocs()
	for b.Loop() {
		sink = EqualFold(name, "TRANSFER-ENCODING")
	}
}

func BenchmarkHasPrefixLower(b *testing.B) {
	target := []byte("HTTPS://example.com/")
	b.ReportAllocs()
	for b.Loop() {
		sink = HasPrefixLower(target, "https://")
	}
}

func BenchmarkLowerInPlace(b *testing.B) {
	line := []byte("Content-Type: text/plain")
	b.ReportAllocs()
	for b.Loop() {
		LowerInPlace(line[:12])
	}
}

func BenchmarkToLowerUnchanged(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ToLower("sec-websocket-protocol")
	}
}
