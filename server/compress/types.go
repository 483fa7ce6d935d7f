package compress

import "github.com/gust-http/gust/internal/ascii"

// compressible reports whether a body of Content-Type ct is worth
// compressing: not when it is compressed already (images but SVG, audio,
// video, fonts in WOFF, archives, PDF). An empty type is the server's
// text/plain default, or sniffed text.
func compressible(ct []byte) bool {
	ct = mediaType(ct)
	switch {
	case ascii.HasPrefixLower(ct, "image/"):
		return ascii.EqualLower(ct, "image/svg+xml") || ascii.EqualLower(ct, "image/x-icon") || ascii.EqualLower(ct, "image/bmp")
	case ascii.HasPrefixLower(ct, "video/"), ascii.HasPrefixLower(ct, "audio/"):
		return false
	}
	for _, t := range compressed {
		if ascii.EqualLower(ct, t) {
			return false
		}
	}
	return true
}

// compressed lists media types that are compressed already.
var compressed = []string{
	"application/zip", "application/gzip", "application/x-gzip", "application/zstd",
	"application/x-brotli", "application/x-bzip2", "application/x-xz", "application/x-7z-compressed",
	"application/x-rar-compressed", "application/vnd.rar", "application/pdf",
	"font/woff", "font/woff2", "application/font-woff",
}

// mediaType returns ct without parameters and blanks.
func mediaType(ct []byte) []byte {
	ct, _ = cutByte(ct, ';')
	return trim(ct)
}
