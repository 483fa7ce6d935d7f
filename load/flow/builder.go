package flow

import (
	"bytes"
	"strings"
)

// Builder holds the buffers a step's request is built in: its target,
// header values, cookies and body, filled from one user's variables. A
// loop keeps one for all its users, since it builds one request at a
// time and its connection copies the bytes out before the next: a user
// keeps no request of its own. The zero Builder is ready to use.
type Builder struct {
	arena []byte
	marks []int
	req   Request
}

// Request builds the request of the step Next returned Send for, from
// u's variables and cookies, in b: the step's own, or the next hop of
// its redirects. The Request and its slices are valid until b builds
// another.
func (u *User) Request(b *Builder) *Request {
	s := &u.f.steps[u.step]
	hop := u.hops > 0
	method := s.method
	if hop && u.get {
		method = "GET"
	}
	var a []byte
	if hop {
		a = append(b.arena[:0], u.loc...)
	} else {
		a = s.url.append(b.arena[:0], u.vals)
	}
	a = escapeTarget(a, 0)
	path, _, _ := bytes.Cut(a, []byte{'?'})
	u.path = append(u.path[:0], path...)
	b.marks = append(b.marks[:0], len(a))
	r := &b.req
	r.Header = r.Header[:0]
	for _, h := range s.headers {
		if hop && u.get && strings.EqualFold(h.name, "Content-Type") {
			continue // a hop turned GET sends no body
		}
		start := len(a)
		a = h.value.append(a, u.vals)
		blankControls(a[start:])
		b.marks = append(b.marks, len(a))
		r.Header = append(r.Header, [2]string{h.name, ""})
	}
	cookies := false
	if u.f.cookies {
		a, cookies = u.appendCookies(a, u.path)
		if cookies {
			b.marks = append(b.marks, len(a))
		}
	}
	if !(hop && u.get) {
		a = s.body.append(a, u.vals)
	}
	b.arena = a // no more appends: the views below stay put
	r.Step, r.Method, r.Target = u.step, method, a[:b.marks[0]]
	for k := range r.Header {
		r.Header[k][1] = view(a[b.marks[k]:b.marks[k+1]])
	}
	if cookies {
		k := len(r.Header)
		r.Header = append(r.Header, [2]string{"Cookie", view(a[b.marks[k]:b.marks[k+1]])})
	}
	r.Body = a[b.marks[len(b.marks)-1]:]
	return r
}

// escapeTarget percent-encodes the spaces and control bytes of the
// request target a[from:] (a variable's value may hold them), so that
// the request line stays one line of three parts.
func escapeTarget(a []byte, from int) []byte {
	n := 0
	for _, c := range a[from:] {
		if c <= ' ' || c == 0x7f {
			n++
		}
	}
	if n == 0 {
		return a
	}
	end := len(a)
	a = append(a, make([]byte, 2*n)...)
	w := len(a)
	for r := end - 1; r >= from; r-- {
		c := a[r]
		if c <= ' ' || c == 0x7f {
			w -= 3
			a[w], a[w+1], a[w+2] = '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15]
			continue
		}
		w--
		a[w] = c
	}
	return a
}

// blankControls turns a header value's CR, LF and NUL (a variable's value
// may hold them) into spaces, so that a value never ends its field.
func blankControls(v []byte) {
	for i, c := range v {
		if c == '\r' || c == '\n' || c == 0 {
			v[i] = ' '
		}
	}
}
