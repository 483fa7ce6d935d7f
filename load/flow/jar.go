package flow

import (
	"bytes"
	"strconv"
	"time"
)

// cookie is one cookie of a user's jar: its name, value and path, and
// when it expires on the run's clock (0: at the end of the run, as a
// session cookie does when the browser closes).
type cookie struct {
	name, value, path []byte
	expires           int64
}

// cookieTime is the layout of an Expires attribute (RFC 6265 section
// 5.1.1 accepts more; servers send this one, the IMF-fixdate).
const cookieTime = "Mon, 02 Jan 2006 15:04:05 GMT"

// setCookie stores the cookie of a Set-Cookie value, received at now in
// answer to a request for reqPath, in u's jar, or removes it when it
// has expired: Max-Age=0 or less, or an Expires in the past. A cookie
// is one per name and path (RFC 6265 section 5.3); without a Path its
// path is reqPath's directory. Domain, Secure and SameSite are not
// looked at: every step goes to the one target.
func (u *User) setCookie(v, reqPath []byte, now int64) {
	pair, attrs, _ := bytes.Cut(v, []byte{';'})
	name, value, ok := bytes.Cut(pair, []byte{'='})
	name = bytes.TrimSpace(name)
	if !ok || len(name) == 0 {
		return
	}
	value = bytes.Trim(bytes.TrimSpace(value), `"`)
	var path []byte
	var expires int64
	maxAge := false
	for len(attrs) > 0 {
		var a []byte
		a, attrs, _ = bytes.Cut(attrs, []byte{';'})
		k, val, _ := bytes.Cut(bytes.TrimSpace(a), []byte{'='})
		val = bytes.TrimSpace(val)
		switch {
		case asciiEqualFold(k, "Max-Age"):
			if n, err := strconv.ParseInt(string(val), 10, 64); err == nil {
				maxAge = true
				expires = now + min(n, maxThink/int64(time.Second))*int64(time.Second)
				if n <= 0 {
					expires = -1
				}
			}
		case asciiEqualFold(k, "Expires") && !maxAge: // Max-Age wins, wherever it is
			if t, err := time.Parse(cookieTime, string(val)); err == nil {
				expires = -1
				if d := time.Until(t); d > 0 {
					expires = now + min(int64(d), maxThink)
				}
			}
		case asciiEqualFold(k, "Path"):
			if len(val) > 0 && val[0] == '/' {
				path = val
			}
		}
	}
	if path == nil {
		path = defaultPath(reqPath)
	}
	gone := expires < 0
	for i := range u.jar {
		c := &u.jar[i]
		if bytes.Equal(c.name, name) && bytes.Equal(c.path, path) {
			if gone {
				u.jar = append(u.jar[:i], u.jar[i+1:]...)
				return
			}
			c.value = append(c.value[:0], value...)
			c.expires = expires
			return
		}
	}
	if !gone {
		u.jar = append(u.jar, cookie{name: bytes.Clone(name), value: bytes.Clone(value), path: bytes.Clone(path), expires: expires})
	}
}

// defaultPath is a cookie's path when its Set-Cookie names none: the
// request path up to its last slash, or "/" (RFC 6265 section 5.1.4).
func defaultPath(reqPath []byte) []byte {
	i := bytes.LastIndexByte(reqPath, '/')
	if i <= 0 {
		return rootPath
	}
	return reqPath[:i]
}

var rootPath = []byte{'/'}

// pathMatch reports whether a cookie of path p is sent with a request for
// reqPath (RFC 6265 section 5.1.4): the same path, or p a prefix of it
// ending at a slash.
func pathMatch(p, reqPath []byte) bool {
	if !bytes.HasPrefix(reqPath, p) {
		return false
	}
	return len(reqPath) == len(p) || p[len(p)-1] == '/' || reqPath[len(p)] == '/'
}

// expire drops the cookies of u's jar that have expired at now.
func (u *User) expire(now int64) {
	j := u.jar[:0]
	for _, c := range u.jar {
		if c.expires == 0 || c.expires > now {
			j = append(j, c)
		}
	}
	clear(u.jar[len(j):])
	u.jar = j
}

// appendCookies appends the Cookie field's value for a request of
// reqPath, the jar's cookies that match it in the order they were set,
// and reports whether any did.
func (u *User) appendCookies(a, reqPath []byte) ([]byte, bool) {
	any := false
	for _, c := range u.jar {
		if !pathMatch(c.path, reqPath) {
			continue
		}
		if any {
			a = append(a, "; "...)
		}
		a = append(a, c.name...)
		a = append(a, '=')
		a = append(a, c.value...)
		any = true
	}
	return a, any
}
