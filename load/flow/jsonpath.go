package flow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A JSON path (a.b[0].c) is looked up in a response body by scanning it
// once: values off the path are skipped, never decoded, so a capture
// from a large body allocates nothing but what it keeps.

// pathSeg is one step of a path: an object key, or an array index (key
// empty, idx >= 0).
type pathSeg struct {
	key string
	idx int
}

// parsePath reads a.b[0].c into segments.
func parsePath(p string) ([]pathSeg, error) {
	if p == "" {
		return nil, fmt.Errorf("empty JSON path: write a.b[0].c")
	}
	var segs []pathSeg
	for _, part := range strings.Split(p, ".") {
		key := part
		var idxs []int
		if i := strings.IndexByte(part, '['); i >= 0 {
			key = part[:i]
			rest := part[i:]
			for rest != "" {
				j := strings.IndexByte(rest, ']')
				if rest[0] != '[' || j < 0 {
					return nil, fmt.Errorf("JSON path %q: want [index] after a key", p)
				}
				n, err := strconv.Atoi(rest[1:j])
				if err != nil || n < 0 {
					return nil, fmt.Errorf("JSON path %q: %q is not an index", p, rest[1:j])
				}
				idxs = append(idxs, n)
				rest = rest[j+1:]
			}
		}
		if key == "" && len(idxs) == 0 {
			return nil, fmt.Errorf("JSON path %q has an empty key", p)
		}
		if key != "" {
			segs = append(segs, pathSeg{key: key, idx: -1})
		}
		for _, n := range idxs {
			segs = append(segs, pathSeg{idx: n})
		}
	}
	return segs, nil
}

// lookupJSON returns the raw text of the value at path in body, and
// whether it was found.
func lookupJSON(body []byte, path []pathSeg) ([]byte, bool) {
	s := scanner{b: body}
	for _, seg := range path {
		s.space()
		if s.i >= len(s.b) {
			return nil, false
		}
		found := false
		if seg.key != "" {
			if s.b[s.i] != '{' {
				return nil, false
			}
			s.i++
			for {
				s.space()
				if s.i >= len(s.b) || s.b[s.i] == '}' {
					return nil, false
				}
				k, ok := s.str()
				if !ok {
					return nil, false
				}
				s.space()
				if s.i >= len(s.b) || s.b[s.i] != ':' {
					return nil, false
				}
				s.i++
				s.space()
				if keyIs(k, seg.key) {
					found = true
					break
				}
				if !s.skip() || !s.comma('}') {
					return nil, false
				}
			}
		} else {
			if s.b[s.i] != '[' {
				return nil, false
			}
			s.i++
			for n := 0; ; n++ {
				s.space()
				if s.i >= len(s.b) || s.b[s.i] == ']' {
					return nil, false
				}
				if n == seg.idx {
					found = true
					break
				}
				if !s.skip() || !s.comma(']') {
					return nil, false
				}
			}
		}
		if !found {
			return nil, false
		}
	}
	s.space()
	start := s.i
	if !s.skip() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// keyIs reports whether the raw key (quotes stripped, escapes kept)
// is key; a key with escapes is decoded first.
func keyIs(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	var k string
	q := append(append([]byte{'"'}, raw...), '"')
	return json.Unmarshal(q, &k) == nil && k == key
}

// jsonText returns a value's text as a capture or a check sees it: a
// string unquoted and unescaped, anything else as written.
func jsonText(dst, raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return append(dst, raw...)
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return append(dst, inner...)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return append(dst, inner...)
	}
	return append(dst, s...)
}

// scanner walks JSON text without decoding it.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// comma steps over the comma after a member, or stops before end.
func (s *scanner) comma(end byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ',' {
		s.i++
		return true
	}
	return s.i < len(s.b) && s.b[s.i] == end
}

// str reads a string at s.i and returns its raw inside.
func (s *scanner) str() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			s.i = j + 1
			return s.b[start:j], true
		}
	}
	return nil, false
}

// skip steps over one value of any kind.
func (s *scanner) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		_, ok := s.str()
		return ok
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.str(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	}
	start := s.i
	for s.i < len(s.b) && strings.IndexByte(",}] \t\r\n", s.b[s.i]) < 0 {
		s.i++
	}
	return s.i > start
}
