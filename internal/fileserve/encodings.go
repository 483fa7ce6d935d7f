package fileserve

import "github.com/gust-http/gust/internal/ascii"

// Precompressed siblings: name.br, name.zst and name.gz next to a file,
// sent in its place to a client whose Accept-Encoding takes them (RFC 9110
// section 12.5.3), with Content-Encoding and Vary: Accept-Encoding. The
// sibling is a file like any other: its own ETag (its own time and size)
// and Last-Modified, and ranges apply to it, the encoded bytes.

// Sibling is a coding a precompressed sibling may have, and the suffix of
// its file name.
type Sibling struct{ Coding, Suffix string }

// Siblings are the codings Precompressed tries, in the order preferred at
// equal q-values (smallest output first).
var Siblings = [...]Sibling{
	{"br", ".br"},
	{"zstd", ".zst"},
	{"gzip", ".gz"},
}

// Precompressed looks for the siblings of name (as Get takes it) at time
// now. It returns the coding and entry (held: the caller releases it) of
// the best one the Accept-Encoding value acceptEncoding takes, if any, and
// whether any sibling exists (the response then varies by Accept-Encoding
// whatever this client gets).
func (fc *Cache) Precompressed(name, acceptEncoding []byte, now int64) (coding string, e *Entry, any bool) {
	var buf [520]byte
	bestQ := 0
	for _, s := range Siblings {
		key := append(append(buf[:0], name...), s.Suffix...)
		sib := fc.Get(key, now)
		if sib.Kind != Regular {
			sib.Release()
			continue
		}
		any = true
		q := AcceptQ(acceptEncoding, s.Coding)
		if q > bestQ {
			if e != nil {
				e.Release()
			}
			coding, e, bestQ = s.Coding, sib, q
			continue
		}
		sib.Release()
	}
	return coding, e, any
}

// AcceptQ is the q-value (0 to 1000) the Accept-Encoding value v gives
// coding (lower case): its own entry's, else "*"'s, else 0. "gzip" also
// answers to "x-gzip".
func AcceptQ(v []byte, coding string) int {
	star := -1
	for len(v) > 0 {
		var elem []byte
		elem, v = cutByte(v, ',')
		tok, params := cutByte(elem, ';')
		tok = trimOWS(tok)
		q := 1000
		for len(params) > 0 {
			var p []byte
			p, params = cutByte(params, ';')
			p = trimOWS(p)
			if len(p) > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=' {
				q = parseQ(p[2:])
			}
		}
		switch {
		case ascii.EqualLower(tok, coding), coding == "gzip" && ascii.EqualLower(tok, "x-gzip"):
			return q
		case len(tok) == 1 && tok[0] == '*':
			star = q
		}
	}
	return max(star, 0)
}

// parseQ parses a qvalue ("0", "0.5", "1.000") as thousandths; anything
// else is 0.
func parseQ(b []byte) int {
	b = trimOWS(b)
	if len(b) == 0 || b[0] != '0' && b[0] != '1' {
		return 0
	}
	q := int(b[0]-'0') * 1000
	if len(b) == 1 {
		return q
	}
	if b[1] != '.' || len(b) > 5 {
		return 0
	}
	scale := 100
	for _, d := range b[2:] {
		if d < '0' || d > '9' {
			return 0
		}
		q += int(d-'0') * scale
		scale /= 10
	}
	return min(q, 1000)
}
