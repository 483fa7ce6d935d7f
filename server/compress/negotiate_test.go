package compress

import (
	"bytes"
	"testing"
)

func TestNegotiate(t *testing.T) {
	cases := []struct {
		accept string
		want   Coding
	}{
		{"", Identity},
		{"gzip", Gzip},
		{"GZIP", Gzip},
		{"x-gzip", Gzip},
		{"br", Brotli},
		{"zstd", Zstd},
		{"gzip, deflate, br, zstd", Zstd}, // Chrome's: ties go to the server's order
		{"gzip, deflate, br", Brotli},     // Safari's
		{"gzip, deflate", Gzip},           // curl --compressed without brotli
		{"deflate", Identity},             // unknown to us
		{"compress, x-foo", Identity},
		{"gzip;q=1.0, br;q=0.5", Gzip},
		{"br;q=0.9, gzip;q=0.8, zstd;q=0.1", Brotli},
		{"gzip;q=0.001", Gzip},
		{"gzip;q=0", Identity},
		{"gzip;q=0.0, br", Brotli},
		{"*", Zstd},
		{"*;q=0.5, gzip", Gzip},
		{"*, zstd;q=0", Brotli},
		{"*;q=0", Identity},
		{"gzip, *;q=0", Gzip},
		{"identity", Identity},
		{"gzip;q=0.5, identity", Identity}, // identity preferred
		{"gzip, identity", Gzip},           // ties go to a coding
		{"identity;q=0", Identity},         // nothing else: identity rather than 406
		{"identity;q=0, gzip", Gzip},
		{" gzip ; q=0.7 , br ; q = 0.7 ", Brotli}, // blanks; the tie goes to br
		{"gzip;level=1;q=0.2, br;q=0.1", Gzip},    // other parameters ignored
		{"gzip;q=2, br;q=0.1", Brotli},            // q out of range: the element is ignored
		{"gzip;q=0.12345, br;q=0.1", Brotli},      // too many decimals
		{"gzip;q=abc, br;q=0.1", Brotli},
		{"gzip;q=, br;q=0.1", Brotli},
		{",,, gzip ,", Gzip},
		{"gzip;q=1., br;q=0.9", Gzip},
	}
	for _, c := range cases {
		if got := Negotiate([]byte(c.accept), DefaultOrder); got != c.want {
			t.Errorf("Negotiate(%q) = %v, want %v", c.accept, got, c.want)
		}
	}
}

func TestNegotiateOrder(t *testing.T) {
	if got := Negotiate([]byte("gzip, br, zstd"), []Coding{Gzip, Brotli}); got != Gzip {
		t.Errorf("order gzip, br: got %v, want gzip", got)
	}
	if got := Negotiate([]byte("zstd"), []Coding{Gzip}); got != Identity {
		t.Errorf("zstd not offered: got %v, want identity", got)
	}
}

func TestNegotiateAllocs(t *testing.T) {
	accept := []byte("gzip, deflate, br;q=0.9, zstd;q=0.8, *;q=0.1")
	if n := testing.AllocsPerRun(100, func() { Negotiate(accept, DefaultOrder) }); n != 0 {
		t.Errorf("Negotiate allocates %v times", n)
	}
}

// FuzzNegotiate checks that any header is answered without a panic, and
// that a coding chosen was offered and is named, or stood for by "*".
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"gzip", "br;q=0.5, gzip;q=0.4", "*;q=0", "identity;q=1, zstd;q=0.999", "gzip;q=1.", ";;,;q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := Negotiate([]byte(accept), DefaultOrder)
		if got == Identity {
			return
		}
		lower := bytes.ToLower([]byte(accept))
		if !bytes.Contains(lower, []byte(got.String())) && !bytes.Contains(lower, []byte("*")) {
			t.Fatalf("Negotiate(%q) = %v, which it does not name", accept, got)
		}
		if Negotiate([]byte(accept), []Coding{got}) != got {
			t.Fatalf("Negotiate(%q) = %v, but not when it alone is offered", accept, got)
		}
	})
}
