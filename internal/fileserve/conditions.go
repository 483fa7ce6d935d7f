package fileserve

import (
	"net/http"
	"time"
)

// Conditional requests on a file (RFC 9110 section 13), evaluated in the
// order of section 13.2.2, as net/http's ServeContent does: If-Match (or
// If-Unmodified-Since), If-None-Match (or If-Modified-Since), then If-Range
// deciding whether Range applies.

// Request holds what a file response depends on in a request: whether
// its method is GET or HEAD, and the fields that make it conditional or
// partial, nil where the request has none.
type Request struct {
	GetOrHead         bool
	IfMatch           []byte
	IfUnmodifiedSince []byte
	IfNoneMatch       []byte
	IfModifiedSince   []byte
	IfRange           []byte
	Range             []byte
}

// Answer is what a request's preconditions leave for the response.
type Answer uint8

const (
	Serve              Answer = iota // serve, with the Range if any
	ServeWhole                       // serve the whole representation: If-Range failed
	NotModified                      // 304
	PreconditionFailed               // 412
)

// Evaluate checks r's preconditions against a representation with entity
// tag etag (quoted), modification time mod (whole seconds) and mod's
// Last-Modified value lastMod.
func Evaluate(r *Request, etag string, mod time.Time, lastMod string) Answer {
	if r.IfMatch != nil {
		if !etagListMatch(r.IfMatch, etag, false) {
			return PreconditionFailed
		}
	} else if r.IfUnmodifiedSince != nil {
		if t, ok := parseHTTPDate(r.IfUnmodifiedSince, lastMod, mod); ok && mod.After(t) {
			return PreconditionFailed
		}
	}
	if r.IfNoneMatch != nil {
		if etagListMatch(r.IfNoneMatch, etag, true) {
			if r.GetOrHead {
				return NotModified
			}
			return PreconditionFailed
		}
	} else if r.IfModifiedSince != nil && r.GetOrHead {
		if t, ok := parseHTTPDate(r.IfModifiedSince, lastMod, mod); ok && !mod.After(t) {
			return NotModified
		}
	}
	if r.IfRange != nil && r.GetOrHead && r.Range != nil {
		if !ifRangeMatches(r.IfRange, etag, mod, lastMod) {
			return ServeWhole
		}
	}
	return Serve
}

// parseHTTPDate parses an HTTP date; the value the server itself sent
// (lastMod, the usual echo) is recognized without parsing.
func parseHTTPDate(v []byte, lastMod string, mod time.Time) (time.Time, bool) {
	if string(v) == lastMod {
		return mod, true
	}
	t, err := http.ParseTime(string(v))
	return t, err == nil
}

// ifRangeMatches: an entity tag must match strongly, a date exactly.
func ifRangeMatches(v []byte, etag string, mod time.Time, lastMod string) bool {
	v = trimOWS(v)
	if len(v) > 0 && (v[0] == '"' || len(v) > 1 && v[0] == 'W' && v[1] == '/') {
		tag, _, ok := nextETag(v)
		return ok && !isWeak(tag) && string(tag) == etag
	}
	t, ok := parseHTTPDate(v, lastMod, mod)
	return ok && t.Unix() == mod.Unix()
}

// etagListMatch reports whether the If-Match or If-None-Match value v
// ("*" or a list of entity tags) matches etag, weakly (the W/ prefix
// ignored) or strongly (a weak tag never matches).
func etagListMatch(v []byte, etag string, weak bool) bool {
	v = trimOWS(v)
	if string(v) == "*" {
		return true
	}
	for len(v) > 0 {
		v = trimOWS(v)
		if len(v) > 0 && v[0] == ',' {
			v = v[1:]
			continue
		}
		tag, rest, ok := nextETag(v)
		if !ok {
			return false
		}
		v = rest
		if isWeak(tag) {
			if !weak {
				continue
			}
			tag = tag[2:]
		}
		if string(tag) == etag {
			return true
		}
	}
	return false
}

// nextETag splits the entity tag at the start of v (W/"x" or "x") from
// what follows.
func nextETag(v []byte) (tag, rest []byte, ok bool) {
	start := 0
	if len(v) > 1 && v[0] == 'W' && v[1] == '/' {
		start = 2
	}
	if len(v) <= start || v[start] != '"' {
		return nil, nil, false
	}
	for i := start + 1; i < len(v); i++ {
		switch b := v[i]; {
		case b == '"':
			return v[:i+1], v[i+1:], true
		case b == 0x21 || b >= 0x23 && b != 0x7f: // etagc
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

func isWeak(tag []byte) bool { return len(tag) > 1 && tag[0] == 'W' && tag[1] == '/' }
