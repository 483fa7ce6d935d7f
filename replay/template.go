package replay

import (
	"bytes"
	"sync"
)

// An endpoint is a method and a path template: the request path with the
// segments that look like ids collapsed to ":id", so that /users/17 and
// /users/42 both count under "GET /users/:id". The query is left out.
//
// A segment is an id when it is
//   - all digits: 17
//   - a UUID: 0f8fad5b-d9cb-469f-a165-70867728950e
//   - 16 or more hex digits with at least one digit: a hash or an ObjectId
//   - 20 or more letters, digits, '-' or '_' with at least one digit: a
//     token or a slug with a number in it
//   - digits with separators (- _ . : ,) and no letters: 2026-11-22, 1.2.3
//
// and in a segment with dots, each dot-separated part that is an id, or
// 6 or more hex digits with a digit among them, is collapsed on its own:
// /users/17.json becomes /users/:id.json and /static/app.3f2a1b.js
// /static/app.:id.js.

// maxTemplate bounds an endpoint's name; longer ones are cut.
const maxTemplate = 200

// appendEndpoint appends "METHOD /template" for method and target to dst.
func appendEndpoint(dst, method, target []byte) []byte {
	dst = append(dst, method...)
	dst = append(dst, ' ')
	path := target
	if i := bytes.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if len(path) == 0 || path[0] != '/' {
		return append(dst, path...) // "*"
	}
	for len(path) > 0 {
		// path[0] == '/'
		dst = append(dst, '/')
		path = path[1:]
		end := bytes.IndexByte(path, '/')
		if end < 0 {
			end = len(path)
		}
		dst = appendSegment(dst, path[:end])
		path = path[end:]
	}
	return dst
}

func appendSegment(dst, seg []byte) []byte {
	if isID(seg) {
		return append(dst, ":id"...)
	}
	if bytes.IndexByte(seg, '.') < 0 {
		return append(dst, seg...)
	}
	for i := 0; len(seg) > 0; i++ {
		if i > 0 {
			dst = append(dst, '.')
		}
		part := seg
		if dot := bytes.IndexByte(seg, '.'); dot >= 0 {
			part, seg = seg[:dot], seg[dot+1:]
		} else {
			seg = nil
		}
		if isID(part) || isHexID(part) {
			dst = append(dst, ":id"...)
		} else {
			dst = append(dst, part...)
		}
	}
	return dst
}

// isHexID reports whether s is 6 or more hex digits with a digit among
// them, such as a content hash in a file name.
func isHexID(s []byte) bool {
	if len(s) < 6 {
		return false
	}
	digit := false
	for _, c := range s {
		if !isHex(c) {
			return false
		}
		digit = digit || isDigit(c)
	}
	return digit
}

func isID(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	var digits, hexLetters, letters, seps, other int
	for _, c := range s {
		switch {
		case isDigit(c):
			digits++
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			hexLetters++
		case 'g' <= c && c <= 'z' || 'G' <= c && c <= 'Z':
			letters++
		case c == '-' || c == '_' || c == '.' || c == ':' || c == ',':
			seps++
		default:
			other++
		}
	}
	switch {
	case digits == 0 || other > 0:
		return false
	case digits == len(s):
		return true
	case isUUID(s):
		return true
	case letters == 0 && seps == 0 && len(s) >= 16:
		return true // hex
	case letters == 0 && hexLetters == 0:
		return true // digits and separators
	case len(s) >= 20 && !bytes.ContainsAny(s, ".:,"):
		return true // a token or slug
	}
	return false
}

func isUUID(s []byte) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

// OtherEndpoint names the endpoint that collects every template past the
// limit on distinct endpoints.
const OtherEndpoint = "(other)"

// endpoints assigns ids to endpoint names, up to a limit past which every
// new name counts as OtherEndpoint. Lookups of known names do not allocate.
type endpoints struct {
	max   int
	ids   map[string]int
	other int // id of OtherEndpoint, or -1 until needed

	mu    sync.Mutex // guards names, which Endpoints reads from another goroutine
	names []string
}

func newEndpoints(max int) *endpoints {
	return &endpoints{max: max, ids: make(map[string]int), other: -1}
}

// id returns name's id, adding it if new.
func (t *endpoints) id(name []byte) int {
	if len(name) > maxTemplate {
		name = name[:maxTemplate]
	}
	if id, ok := t.ids[string(name)]; ok {
		return id
	}
	if len(t.ids) >= t.max {
		if t.other < 0 {
			t.other = t.add(OtherEndpoint)
		}
		return t.other
	}
	s := string(name)
	id := t.add(s)
	t.ids[s] = id
	return id
}

func (t *endpoints) add(name string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.names = append(t.names, name)
	return len(t.names) - 1
}

// list returns the names by id.
func (t *endpoints) list() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.names...)
}
