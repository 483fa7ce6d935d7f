package compress

// compressible reports whether a body of Content-Type ct is worth
// compressing: not when it is compressed already (images but SVG, audio,
// video, fonts in WOFF, archives, PDF). An empty type is the server's
// text/plain default, or sniffed text.
func compressible(ct []byte) bool {
	ct = mediaType(ct)
	switch {
	case hasPrefixFold(ct, "image/"):
		return equalFold(ct, "image/svg+xml") || equalFold(ct, "image/x-icon") || equalFold(ct, "image/bmp")
	case hasPrefixFold(ct, "video/"), hasPrefixFold(ct, "audio/"):
		return false
	}
	for _, t := range compressed {
		if equalFold(ct, t) {
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

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && equalFold(s[:len(prefix)], prefix)
}
