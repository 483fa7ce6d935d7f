package compress

import "github.com/gust-http/gust/internal/ascii"

// Coding is a content coding the package can apply.
type Coding uint8

// The codings, and Identity for "send the body as it is".
const (
	Identity Coding = iota
	Zstd
	Brotli
	Gzip
)

// String returns the coding's token as Content-Encoding names it.
func (c Coding) String() string {
	switch c {
	case Zstd:
		return "zstd"
	case Brotli:
		return "br"
	case Gzip:
		return "gzip"
	}
	return "identity"
}

// DefaultOrder is the server's preference among codings the client
// accepts with equal q-values: zstd first (the least CPU for a ratio
// like gzip's or better), then brotli, then gzip, which every client has.
var DefaultOrder = []Coding{Zstd, Brotli, Gzip}

// Negotiate chooses the coding for a request's Accept-Encoding value
// among order (the server's preference on ties), by RFC 9110 section
// 12.5.3: the highest q-value wins; "*" stands for every coding not
// named; q=0 excludes; unknown codings are ignored. Identity is chosen
// when nothing in order is acceptable, or when the client names
// "identity" with a q-value above every acceptable coding's. (A client
// that refuses identity too, "identity;q=0" or "*;q=0", still gets
// identity rather than 406: a response beats none.) An empty or missing
// header means identity. Negotiate allocates nothing.
func Negotiate(accept []byte, order []Coding) Coding {
	if len(accept) == 0 {
		return Identity
	}
	var q [4]int // per Coding; -1: not named
	for i := range q {
		q[i] = -1
	}
	star := -1
	for rest := accept; len(rest) > 0; {
		var elem []byte
		elem, rest = cutByte(rest, ',')
		name, params := cutByte(elem, ';')
		name = trim(name)
		if len(name) == 0 {
			continue
		}
		v, ok := qValue(params)
		if !ok {
			continue // a malformed element is ignored, as if absent
		}
		switch {
		case ascii.EqualLower(name, "gzip"), ascii.EqualLower(name, "x-gzip"):
			q[Gzip] = max(q[Gzip], v)
		case ascii.EqualLower(name, "br"):
			q[Brotli] = max(q[Brotli], v)
		case ascii.EqualLower(name, "zstd"):
			q[Zstd] = max(q[Zstd], v)
		case ascii.EqualLower(name, "identity"):
			q[Identity] = max(q[Identity], v)
		case len(name) == 1 && name[0] == '*':
			star = max(star, v)
		}
	}
	best, bestQ := Identity, 0
	for _, c := range order {
		v := q[c]
		if v < 0 {
			v = star
		}
		if v > bestQ {
			best, bestQ = c, v
		}
	}
	if best != Identity && q[Identity] > bestQ {
		return Identity
	}
	return best
}

// qValue parses an element's parameters for its weight, 0 to 1000
// (RFC 9110 section 12.4.2: at most three decimals); no "q" means 1000.
func qValue(params []byte) (int, bool) {
	for len(params) > 0 {
		var p []byte
		p, params = cutByte(params, ';')
		p = trim(p)
		if len(p) < 2 || (p[0] != 'q' && p[0] != 'Q') {
			continue // another parameter: ignored
		}
		v := trim(p[1:])
		if len(v) == 0 || v[0] != '=' {
			continue
		}
		return parseWeight(trim(v[1:]))
	}
	return 1000, true
}

// parseWeight parses "0", "0.5", "1", "1.000" into thousandths.
func parseWeight(v []byte) (int, bool) {
	if len(v) == 0 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	w := int(v[0]-'0') * 1000
	v = v[1:]
	if len(v) == 0 {
		return w, true
	}
	if v[0] != '.' || len(v) > 4 {
		return 0, false
	}
	scale := 100
	for _, d := range v[1:] {
		if d < '0' || d > '9' {
			return 0, false
		}
		w += int(d-'0') * scale
		scale /= 10
	}
	if w > 1000 {
		return 0, false
	}
	return w, true
}

func cutByte(s []byte, sep byte) (before, after []byte) {
	for i, c := range s {
		if c == sep {
			return s[:i], s[i+1:]
		}
	}
	return s, nil
}

func trim(s []byte) []byte {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
