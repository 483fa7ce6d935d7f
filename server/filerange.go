package server

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/gust-http/gust/internal/ascii"
)

// Range requests (RFC 9110 section 14): the Range field parsed against a
// representation's size, and the multipart/byteranges body of several.

// byteRange is one satisfiable range of a representation.
type byteRange struct{ start, length int64 }

// rangeOutcome is what a Range field asks for.
type rangeOutcome uint8

const (
	rangeNone          rangeOutcome = iota // no ranges (or ignored): the whole representation, 200
	rangeSatisfiable                       // the ranges returned, 206
	rangeUnsatisfiable                     // 416: bad syntax, or no range overlaps
)

// maxRanges bounds the ranges of one request: past it the field is
// ignored and the whole representation sent, as when the ranges add up to
// more than the representation (both are net/http's defences too).
const maxRanges = 64

// parseRanges parses the Range field v (RFC 9110 section 14.1.2) for a
// representation of size bytes into dst. A unit other than bytes is
// ignored (section 14.2); bad syntax, or ranges none of which overlap, are
// unsatisfiable, except on an empty representation, whose ranges are
// ignored (as net/http does). A suffix range of 0 bytes is unsatisfiable.
func parseRanges(v []byte, size int64, dst []byteRange) ([]byteRange, rangeOutcome) {
	dst = dst[:0]
	i := 0
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	if len(v)-i < 6 || !ascii.EqualLower(v[i:i+5], "bytes") {
		return dst, rangeNone
	}
	i += 5
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	if i == len(v) || v[i] != '=' {
		return dst, rangeNone // another unit, e.g. "bytesx=": not ours
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
			return dst[:0], rangeUnsatisfiable
		}
		first, last := trimOWS(spec[:dash]), trimOWS(spec[dash+1:])
		var r byteRange
		if len(first) == 0 {
			n, ok := parseDigits(last)
			if !ok {
				return dst[:0], rangeUnsatisfiable
			}
			if n == 0 {
				noOverlap = true
				continue
			}
			n = min(n, size)
			r = byteRange{start: size - n, length: n}
		} else {
			a, ok := parseDigits(first)
			if !ok {
				return dst[:0], rangeUnsatisfiable
			}
			if a >= size {
				noOverlap = true // whatever its end says, as net/http does
				continue
			}
			end := size - 1
			if len(last) > 0 {
				b, ok := parseDigits(last)
				if !ok || b < a {
					return dst[:0], rangeUnsatisfiable
				}
				end = min(b, size-1)
			}
			r = byteRange{start: a, length: end - a + 1}
		}
		if len(dst) == maxRanges {
			return dst[:0], rangeNone
		}
		dst = append(dst, r)
		sum += r.length
	}
	switch {
	case size == 0:
		return dst[:0], rangeNone
	case len(dst) == 0 && noOverlap:
		return dst, rangeUnsatisfiable
	case len(dst) == 0 || sum > size:
		return dst[:0], rangeNone
	}
	return dst, rangeSatisfiable
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

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// appendContentRange appends "bytes first-last/size".
func appendContentRange(dst []byte, r byteRange, size int64) []byte {
	dst = append(dst, "bytes "...)
	dst = strconv.AppendInt(dst, r.start, 10)
	dst = append(dst, '-')
	dst = strconv.AppendInt(dst, r.start+r.length-1, 10)
	dst = append(dst, '/')
	return strconv.AppendInt(dst, size, 10)
}

// byterangesBoundary separates the parts of every multipart/byteranges
// body this process sends: random, made once (a body cannot contain it by
// chance, and nothing is gained by a new one per response).
var byterangesBoundary = func() string {
	var b [15]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// byterangesType is the Content-Type of a multipart/byteranges body.
var byterangesType = "multipart/byteranges; boundary=" + byterangesBoundary

// addByteranges fills b with the multipart/byteranges body of ranges of a
// file of size bytes whose parts are of type ctype (RFC 9110 section
// 14.6), laid out as mime/multipart writes it.
func addByteranges(b *fileBody, ranges []byteRange, ctype string, size int64) {
	var pre []byte
	for i, r := range ranges {
		pre = pre[:0]
		if i > 0 {
			pre = append(pre, "\r\n"...)
		}
		pre = append(pre, "--"...)
		pre = append(pre, byterangesBoundary...)
		pre = append(pre, "\r\nContent-Range: "...)
		pre = appendContentRange(pre, r, size)
		if ctype != "" {
			pre = append(pre, "\r\nContent-Type: "...)
			pre = append(pre, ctype...)
		}
		pre = append(pre, "\r\n\r\n"...)
		b.add(pre, r.start, r.length)
	}
	pre = append(pre[:0], "\r\n--"...)
	pre = append(pre, byterangesBoundary...)
	pre = append(pre, "--\r\n"...)
	b.add(pre, 0, 0)
}
