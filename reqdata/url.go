package reqdata

import (
	"fmt"
	"net/url"
	"strings"
)

// SplitURL splits an absolute http:// or https:// URL into its origin
// (scheme://host[:port]) and its request-target as written, "/" when it
// has none. The target is not escaped, so {{column}} placeholders survive
// (url.URL.RequestURI would write them %7B%7B...).
func SplitURL(raw string) (origin, target string, err error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || (scheme != "http" && scheme != "https") {
		return "", "", fmt.Errorf("bad URL %q: want http:// or https://", raw)
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	origin, target = scheme+"://"+rest[:end], rest[end:]
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	switch {
	case target == "":
		target = "/"
	case target[0] == '?':
		target = "/" + target
	}
	u, err := url.Parse(origin)
	if err != nil || u.Hostname() == "" || strings.Contains(rest[:end], "{{") {
		return "", "", fmt.Errorf("bad URL %q: the host must be a plain host[:port]", raw)
	}
	return origin, target, nil
}

// resolve turns a targets file's URL into an origin-form target: a path
// as it is, an absolute URL only on the run's origin (one server a run).
func resolve(raw, origin string) (string, error) {
	if strings.HasPrefix(raw, "/") {
		return raw, nil
	}
	o, target, err := SplitURL(raw)
	if err != nil {
		return "", err
	}
	if !sameOrigin(o, origin) {
		return "", fmt.Errorf("%s is not on the run's server %s: one server a run", raw, origin)
	}
	return target, nil
}

// sameOrigin compares origins, default ports made explicit, the host
// without regard to case.
func sameOrigin(a, b string) bool { return canonical(a) == canonical(b) }

func canonical(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return origin
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
