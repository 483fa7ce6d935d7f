package flow

import (
	"bytes"
	"regexp"
	"strconv"
)

// Response is what a step's answer gives the flow: its status (0 when
// the request failed), head and body as received (the loop's views, read
// only during Done), and its latency.
type Response struct {
	Status  int
	Head    []byte // status line and header fields, as received
	Body    []byte // the body, possibly cut at the loop's limit
	Latency int64  // nanoseconds
}

// Header returns the value of the first field name in r's head
// (case-insensitive), and whether there was one.
func (r *Response) Header(name string) ([]byte, bool) {
	var v []byte
	found := false
	r.fields(func(n, val []byte) bool {
		if asciiEqualFold(n, name) {
			v, found = val, true
			return false
		}
		return true
	})
	return v, found
}

// fields calls fn with each header field of r's head until it returns
// false.
func (r *Response) fields(fn func(name, value []byte) bool) {
	h := r.Head
	if i := bytes.IndexByte(h, '\n'); i >= 0 {
		h = h[i+1:] // the status line
	}
	for len(h) > 0 {
		line := h
		if i := bytes.IndexByte(h, '\n'); i >= 0 {
			line, h = h[:i], h[i+1:]
		} else {
			h = nil
		}
		line = bytes.TrimRight(line, "\r")
		c := bytes.IndexByte(line, ':')
		if c <= 0 {
			continue
		}
		if !fn(line[:c], bytes.TrimSpace(line[c+1:])) {
			return
		}
	}
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// captureKind is where a capture takes its value from.
type captureKind uint8

const (
	captureJSON captureKind = iota
	captureHeader
	captureRegex
)

// capture sets variable v from a response.
type capture struct {
	kind captureKind
	v    int
	arg  string
	path []pathSeg
	re   *regexp.Regexp
}

// apply sets dst to the captured value (empty when not found) and
// returns it.
func (c *capture) apply(dst []byte, r *Response) []byte {
	dst = dst[:0]
	switch c.kind {
	case captureJSON:
		if raw, ok := lookupJSON(r.Body, c.path); ok {
			dst = jsonText(dst, raw)
		}
	case captureHeader:
		if v, ok := r.Header(c.arg); ok {
			dst = append(dst, v...)
		}
	case captureRegex:
		if m := c.re.FindSubmatchIndex(r.Body); m != nil {
			if len(m) >= 4 && m[2] >= 0 {
				dst = append(dst, r.Body[m[2]:m[3]]...)
			} else {
				dst = append(dst, r.Body[m[0]:m[1]]...)
			}
		}
	}
	return dst
}

// checkKind is what a check looks at.
type checkKind uint8

const (
	checkStatus checkKind = iota
	checkBody
	checkJSON
	checkHeader
	checkLatency
)

// check is one check of a step's response.
type check struct {
	id     int
	kind   checkKind
	status []int
	arg    string
	want   string
	path   []pathSeg
	exists bool
	limit  int64
}

// name is how the report calls c.
func (c *check) name() string {
	switch c.kind {
	case checkStatus:
		return "status"
	case checkBody:
		return "body contains"
	case checkJSON:
		return "json " + c.arg
	case checkHeader:
		return "header " + c.arg
	}
	return "latency"
}

// pass reports whether r passes c.
func (c *check) pass(r *Response) bool {
	switch c.kind {
	case checkStatus:
		for _, s := range c.status {
			if r.Status == s {
				return true
			}
		}
		return false
	case checkBody:
		return bytes.Contains(r.Body, []byte(c.arg))
	case checkJSON:
		raw, ok := lookupJSON(r.Body, c.path)
		if c.want == "\x00exists" {
			return ok == c.exists
		}
		if !ok {
			return false
		}
		if len(raw) > 0 && raw[0] == '"' {
			var tmp [64]byte
			return string(jsonText(tmp[:0], raw)) == c.want
		}
		return string(raw) == c.want || numberEqual(raw, c.want)
	case checkHeader:
		v, ok := r.Header(c.arg)
		return ok && (c.want == "" || string(v) == c.want)
	case checkLatency:
		return r.Latency <= c.limit
	}
	return false
}

// numberEqual reports whether raw and want are the same number written
// differently (1.0 and 1).
func numberEqual(raw []byte, want string) bool {
	a, err1 := strconv.ParseFloat(string(raw), 64)
	b, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && a == b
}
