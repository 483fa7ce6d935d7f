package compress

import "testing"

func TestCompressible(t *testing.T) {
	cases := map[string]bool{
		"":                            true, // the server's text/plain default
		"text/html; charset=utf-8":    true,
		"application/json":            true,
		"TEXT/CSS":                    true,
		"image/svg+xml":               true,
		"application/javascript":      true,
		"text/event-stream":           true,
		"image/png":                   false,
		"IMAGE/JPEG":                  false,
		"image/webp":                  false,
		"video/mp4":                   false,
		"audio/ogg":                   false,
		"application/zip":             false,
		"application/gzip":            false,
		" application/zstd ; foo=bar": false,
		"font/woff2":                  false,
		"application/pdf":             false,
		"application/octet-stream":    true, // unknown: may well be text
	}
	for ct, want := range cases {
		if got := compressible([]byte(ct)); got != want {
			t.Errorf("compressible(%q) = %v, want %v", ct, got, want)
		}
	}
}
