package flow

import (
	"bytes"
	"strings"
)

// A step follows its answer's redirects as a browser does: a 301, 302,
// 303, 307 or 308 with a Location on the target is sent again there, at
// once (no think), its cookies in the jar first, up to the step's
// redirects. 303 turns the request into a GET without a body (HEAD
// stays HEAD), as 301 and 302 do a POST; 307 and 308 keep the method and
// the body. Captures and checks take the last answer; each hop is a
// request of the step's endpoint, and its status is counted with the
// step's. A Location on another host, or past the limit, is not
// followed: the 3xx is the step's answer.

// defaultRedirects is how many redirects a step follows unless the flow
// says otherwise, or its status check expects a 3xx.
const defaultRedirects = 10

// maxRedirects bounds the redirects field: browsers give up at 20.
const maxRedirects = 20

// isRedirect reports whether status sends the client to its Location.
func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// expects3xx reports whether a step's checks want a redirect status: its
// answer is then the redirect, not where it leads.
func expects3xx(checks []checkSpec) bool {
	for _, c := range checks {
		for _, s := range c.status {
			if c.kind == checkStatus && s >= 300 && s < 400 {
				return true
			}
		}
	}
	return false
}

// redirect readies u's next request to follow r, the answer to step s,
// and reports whether it will.
func (u *User) redirect(s *step, r *Response) bool {
	if int(u.hops) >= s.redirects || !isRedirect(r.Status) {
		return false
	}
	loc, ok := r.Header("Location")
	if !ok || !u.locate(loc) {
		return false
	}
	u.hops++
	switch r.Status {
	case 303:
		u.get = u.get || s.method != "HEAD"
	case 301, 302:
		u.get = u.get || s.method == "POST"
	}
	return true
}

// locate sets u.loc to the target loc points at (a path and query),
// resolved against the path of the request it answered, and reports
// false when it is not on the flow's host (or not http at all).
func (u *User) locate(loc []byte) bool {
	loc = bytes.TrimSpace(loc)
	if i := bytes.IndexByte(loc, '#'); i >= 0 {
		loc = loc[:i]
	}
	var auth []byte
	switch {
	case hasPrefixFold(loc, "http://"):
		auth = loc[len("http://"):]
	case hasPrefixFold(loc, "https://"):
		auth = loc[len("https://"):]
	case bytes.HasPrefix(loc, []byte("//")):
		auth = loc[2:]
	}
	switch {
	case auth != nil:
		end := bytes.IndexAny(auth, "/?")
		if end < 0 {
			end = len(auth)
		}
		if !u.f.sameHost(auth[:end]) {
			return false
		}
		u.loc = u.loc[:0]
		if end == len(auth) || auth[end] == '?' {
			u.loc = append(u.loc, '/')
		}
		u.loc = append(u.loc, auth[end:]...)
	case len(loc) == 0:
		return false
	case loc[0] == '/':
		u.loc = append(u.loc[:0], loc...)
	case hasScheme(loc):
		return false // mailto:, ftp: and the like
	case loc[0] == '?':
		u.loc = append(append(u.loc[:0], u.path...), loc...)
	default: // relative to the request's directory (dot segments stay)
		dir := u.path[:bytes.LastIndexByte(u.path, '/')+1]
		u.loc = append(append(u.loc[:0], dir...), loc...)
	}
	return true
}

// hasScheme reports whether a reference starts with a scheme (RFC 3986
// section 3.1): letters, digits, +, - or . before a colon.
func hasScheme(ref []byte) bool {
	for i, c := range ref {
		switch {
		case c == ':':
			return i > 0
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && asciiEqualFold(b[:len(prefix)], prefix)
}

// sameHost reports whether the authority of an absolute Location is the
// flow's target (Options.Host; any, when that is not given).
func (f *Flow) sameHost(auth []byte) bool {
	if f.host == "" {
		return true
	}
	if i := bytes.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	return strings.EqualFold(trimDefaultPort(view(auth)), f.host)
}

// trimDefaultPort drops :80 and :443 from host, so that a Location's
// host compares equal with the target's however either is written.
func trimDefaultPort(host string) string {
	for _, p := range []string{":80", ":443"} {
		if strings.HasSuffix(host, p) {
			return host[:len(host)-len(p)]
		}
	}
	return host
}
