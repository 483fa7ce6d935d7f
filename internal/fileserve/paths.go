package fileserve

// CleanPath percent-decodes a request path once into dst and makes it a
// name relative to the file server's root: "." for the root, segments
// joined by '/', empty segments dropped. dir says the path ended in '/'.
// ok is false for what must not be looked up: a path not starting with
// '/', a bad escape, a NUL, backslash or encoded slash, or a "." or ".."
// segment. A double-encoded "%252e" decodes to "%2e", a name like any
// other.
func CleanPath(p, dst []byte) (name []byte, dir, ok bool) {
	if len(p) == 0 || p[0] != '/' {
		return nil, false, false
	}
	dst = dst[:0]
	i := 1
	for {
		before := len(dst)
		if before > 0 {
			dst = append(dst, '/')
		}
		seg := len(dst)
		for i < len(p) && p[i] != '/' {
			b := p[i]
			if b == '%' {
				if i+2 >= len(p) {
					return nil, false, false
				}
				hi, lo := unhex(p[i+1]), unhex(p[i+2])
				if hi < 0 || lo < 0 {
					return nil, false, false
				}
				b = byte(hi<<4 | lo)
				i += 2
				if b == '/' {
					return nil, false, false // %2F: a separator in disguise
				}
			}
			if b == 0 || b == '\\' {
				return nil, false, false
			}
			dst = append(dst, b)
			i++
		}
		switch string(dst[seg:]) {
		case "":
			dst = dst[:before]
		case ".", "..":
			return nil, false, false
		}
		if i >= len(p) {
			break
		}
		i++ // the '/'
	}
	dir = p[len(p)-1] == '/'
	if len(dst) == 0 {
		return append(dst, '.'), true, true
	}
	return dst, dir, true
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
