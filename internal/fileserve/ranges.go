package fileserve

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/gust-http/gust/internal/ascii"
)

// Range requests (RFC 9110 section 14): the Range field parsed against a
// representation's size, and the heads of the parts of a
// multipart/byteranges body of several.

// Range is one satisfiable range of a representation: Length bytes from
// Start.
type Range struct{ Start, Length int64 }

// RangeOutcome is what a Range field asks for.
type RangeOutcome uint8

const (
	RangeNone          RangeOutcome = iota // no ranges (or ignored): the whole representation, 200
	RangeSatisfiable                       // the ranges returned, 206
	RangeUnsatisfiable                     // 416: bad syntax, or no range overlaps
)

// MaxRanges bounds the ranges of one request: past it the field is
// ignored and the whole representation sent, as when the ranges add up to
// more than the representation (both are net/http's defences too).
const MaxRanges = 64

// ParseRanges parses the Range field v (RFC 9110 section 14.1.2) for a
// representation of size bytes into dst. A unit other than bytes is
// ignored (section 14.2); bad syntax, or ranges none of which overlap, are
// unsatisfiable, except on an empty representation, whose ranges are
// ignored (as net/http does). A suffix range of 0 bytes is unsatisfiable.
// The ranges are returned only with RangeSatisfiable.
func ParseRanges(v []byte, size int64, dst []Range) ([]Range, RangeOutcome) {
	dst = dst[:0]
	i := 0
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	if len(v)-i < 6 || !ascii.EqualLower(v[i:i+5], "bytes") {
		return dst, RangeNone
	}
	i += 5
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	if i == len(v) || v[i] != '=' {
		return dst, RangeNone // another unit, e.g. "bytesx=": not ours
	}
	i++
	noOverlap := false
	var sum int64
	for i <= len(v) {
		j := i
		for j < len(v) && v[j] != ',' {
			j++
		}
		spec := trimOWS(v[i:j])
		i = j + 1
		if len(spec) == 0 {
			continue // empty list elements are allowed
		}
		dash := -1
		for k, b := range spec {
			if b == '-' {
				dash = k
				break
			}
		}
		if dash < 0 {
			return dst[:0], RangeUnsatisfiable
		}
		first, last := trimOWS(spec[:dash]), trimOWS(spec[dash+1:])
		var r Range
		if len(first) == 0 {
			n, ok := parseDigits(last)
			if !ok {
				return dst[:0], RangeUnsatisfiable
			}
			if n == 0 {
				noOverlap = true
				continue
			}
			n = min(n, size)
			r = Range{Start: size - n, Length: n}
		} else {
			a, ok := parseDigits(first)
			if !ok {
				return dst[:0], RangeUnsatisfiable
			}
			if a >= size {
				noOverlap = true // whatever its end says, as net/http does
				continue
			}
			end := size - 1
			if len(last) > 0 {
				b, ok := parseDigits(last)
				if !ok || b < a {
					return dst[:0], RangeUnsatisfiable
				}
				end = min(b, size-1)
			}
			r = Range{Start: a, Length: end - a + 1}
		}
		if len(dst) == MaxRanges {
			return dst[:0], RangeNone
		}
		dst = append(dst, r)
		sum += r.Length
	}
	switch {
	case size == 0:
		return dst[:0], RangeNone
	case len(dst) == 0 && noOverlap:
		return dst, RangeUnsatisfiable
	case len(dst) == 0 || sum > size:
		return dst[:0], RangeNone
	}
	return dst, RangeSatisfiable
}

// parseDigits parses a non-empty run of decimal digits, refusing
// anything else and values past 2^62.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// AppendContentRange appends the Content-Range value of r in a
// representation of size bytes: "bytes first-last/size".
func AppendContentRange(dst []byte, r Range, size int64) []byte {
	dst = append(dst, "bytes "...)
	dst = strconv.AppendInt(dst, r.Start, 10)
	dst = append(dst, '-')
	dst = strconv.AppendInt(dst, r.Start+r.Length-1, 10)
	dst = append(dst, '/')
	return strconv.AppendInt(dst, size, 10)
}

// AppendUnsatisfied appends the Content-Range value of a 416 for a
// representation of size bytes: "bytes */size".
func AppendUnsatisfied(dst []byte, size int64) []byte {
	return strconv.AppendInt(append(dst, "bytes */"...), size, 10)
}

// byterangesBoundary separates the parts of every multipart/byteranges
// body this process sends: random, made once (a body cannot contain it by
// chance, and nothing is gained by a new one per response).
var byterangesBoundary = func() string {
	var b [15]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// ByterangesType is the Content-Type of the multipart/byteranges bodies
// AppendPartHead and AppendClosingBoundary lay out.
var ByterangesType = "multipart/byteranges; boundary=" + byterangesBoundary

// AppendPartHead appends what precedes the bytes of range r, part i
// (from 0) of a multipart/byteranges body of parts of type ctype ("": no
// Content-Type) of a representation of size bytes (RFC 9110 section
// 14.6), laid out as mime/multipart writes it: the boundary and the
// part's head.
func AppendPartHead(dst []byte, i int, r Range, ctype string, size int64) []byte {
	if i > 0 {
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "--"...)
	dst = append(dst, byterangesBoundary...)
	dst = append(dst, "\r\nContent-Range: "...)
	dst = AppendContentRange(dst, r, size)
	if ctype != "" {
		dst = append(dst, "\r\nContent-Type: "...)
		dst = append(dst, ctype...)
	}
	return append(dst, "\r\n\r\n"...)
}

// AppendClosingBoundary appends the end of a multipart/byteranges body,
// after its last part.
func AppendClosingBoundary(dst []byte) []byte {
	dst = append(dst, "\r\n--"...)
	dst = append(dst, byterangesBoundary...)
	return append(dst, "--\r\n"...)
}
