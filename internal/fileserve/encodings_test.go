package fileserve

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAcceptQ(t *testing.T) {
	tests := []struct {
		v, coding string
		want      int
	}{
		{"", "gzip", 0},
		{"gzip", "gzip", 1000},
		{"GZip", "gzip", 1000},
		{"x-gzip;Q=0.3", "gzip", 300},
		{"gzip, br;q=0.5", "br", 500},
		{"br;q=0", "br", 0},
		{"*;q=0.2, gzip;q=0.9", "zstd", 200},
		{"*;q=0.2, gzip;q=0.9", "gzip", 900},
		{"gzip;q=1.000", "gzip", 1000},
		{"gzip;q=0.001", "gzip", 1},
		{"gzip;q=1.5", "gzip", 1000},
		{"gzip;q=2", "gzip", 0},
		{"gzip;q=0.12345", "gzip", 0},
		{"gzip;q=", "gzip", 1000}, // a q without a value is no q
		{"gzip ; q=0.7 ", "gzip", 700},
		{"deflate", "gzip", 0},
	}
	for _, tt := range tests {
		if got := AcceptQ([]byte(tt.v), tt.coding); got != tt.want {
			t.Errorf("AcceptQ(%q, %q) = %d, want %d", tt.v, tt.coding, got, tt.want)
		}
	}
}

func TestPrecompressed(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.js": "plain", "a.js.gz": "gz", "a.js.br": "br", "b.js": "alone"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fc := newTestCache(t, dir)
	now := time.Now().UnixNano()
	tests := []struct {
		name, file, accept string
		coding             string
		any                bool
	}{
		{"the smallest coding wins at equal q", "a.js", "gzip, br, zstd", "br", true},
		{"a higher q wins", "a.js", "gzip, br;q=0.5", "gzip", true},
		{"a coding without a file is not chosen", "a.js", "zstd", "", true},
		{"no Accept-Encoding takes none, but the response varies", "a.js", "", "", true},
		{"a file without siblings does not vary", "b.js", "gzip, br", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coding, e, any := fc.Precompressed([]byte(tt.file), []byte(tt.accept), now)
			if coding != tt.coding || any != tt.any || (e != nil) != (tt.coding != "") {
				t.Fatalf("Precompressed(%q, %q) = %q, %v, %v; want %q, %v", tt.file, tt.accept, coding, e != nil, any, tt.coding, tt.any)
			}
			if e != nil {
				if want := map[string]string{"br": "br", "gzip": "gz"}[tt.coding]; string(e.Data) != want {
					t.Errorf("the %s sibling holds %q", tt.coding, e.Data)
				}
				e.Release()
			}
		})
	}
	for _, name := range []string{"a.js.br", "a.js.gz"} {
		if e := fc.Peek(name); e == nil || e.File.Refs() != 1 {
			t.Errorf("%s: a reference was not given back", name)
		}
	}
}

// FuzzAcceptQ: q-values stay within 0 and 1000 whatever the field.
func FuzzAcceptQ(f *testing.F) {
	for _, s := range []string{"gzip, br;q=0.5", "*;q=0", "br;q=1.0001", "gzip;q=", ";;,,", "x-gzip;Q=0.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, c := range Siblings {
			if q := AcceptQ([]byte(v), c.Coding); q < 0 || q > 1000 {
				t.Fatalf("%q: q %d for %s", v, q, c.Coding)
			}
		}
	})
}
