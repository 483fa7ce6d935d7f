package server

import (
	"net/http"
	"time"
)

// Conditional requests on a file (RFC 9110 section 13), evaluated in the
// order of section 13.2.2, as net/http's ServeContent does: If-Match (or
// If-Unmodified-Since), If-None-Match (or If-Modified-Since), then If-Range
// deciding whether Range applies.

// condAnswer is what the preconditions leave for the response.
type condAnswer uint8

const (
	condServe              condAnswer = iota // serve, with Range if any
	condServeWhole                           // serve the whole representation: If-Range failed
	condNotModified                          // 304
	condPreconditionFailed                   // 412
)

// evalConditions checks c's preconditions against a representation with
// entity tag etag (quoted) and modification time mod (whole seconds), its
// Last-Modified value lastMod.
func evalConditions(c *Ctx, etag string, mod time.Time, lastMod string) condAnswer {
	getOrHead := c.req.Method != nil && (string(c.req.Method) == "GET" || string(c.req.Method) == "HEAD")
	if im := c.Header("If-Match"); im != nil {
		if !etagListMatch(im, etag, false) {
			return condPreconditionFailed
		}
	} else if ius := c.Header("If-Unmodified-Since"); ius != nil {
		if t, ok := parseHTTPDate(ius, lastMod, mod); ok && mod.After(t) {
			return condPreconditionFailed
		}
	}
	if inm := c.Header("If-None-Match"); inm != nil {
		if etagListMatch(inm, etag, true) {
			if getOrHead {
				return condNotModified
			}
			return condPreconditionFailed
		}
	} else if ims := c.Header("If-Modified-Since"); ims != nil && getOrHead {
		if t, ok := parseHTTPDate(ims, lastMod, mod); ok && !mod.After(t) {
			return condNotModified
		}
	}
	if ir := c.Header("If-Range"); ir != nil && getOrHead && c.Header("Range") != nil {
		if !ifRangeMatches(ir, etag, mod, lastMod) {
			return condServeWhole
		}
	}
	return condServe
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
