package http1

// regNameByte[c] is true when c may appear in a reg-name (RFC 3986 section
// 3.2.2): unreserved or sub-delims. pct-encoded is left out on purpose: no
// DNS name needs it, and decoding a host is where implementations disagree.
var regNameByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "-._~!$&'()*+,;=" {
		t[c] = true
	}
	return t
}()

// validAuthority reports whether b is uri-host [":" port] (RFC 9110 section
// 7.2, RFC 3986 section 3.2) with a non-empty host, where uri-host is a
// reg-name, an IPv4 address (a reg-name lexically) or a bracketed IPv6
// address. IPvFuture and IPv6 zone identifiers are refused. When needPort
// is set, the port must be present and non-empty.
func validAuthority(b []byte, needPort bool) bool {
	var port []byte
	if len(b) > 0 && b[0] == '[' {
		end := -1
		for i, c := range b {
			if c == ']' {
				end = i
				break
			}
		}
		if end < 0 || !validIPv6(b[1:end]) {
			return false
		}
		port = b[end+1:]
	} else {
		i := 0
		for i < len(b) && regNameByte[b[i]] {
			i++
		}
		if i == 0 {
			return false
		}
		port = b[i:]
	}
	if len(port) == 0 {
		return !needPort
	}
	if port[0] != ':' || needPort && len(port) == 1 {
		return false
	}
	for _, c := range port[1:] {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// validIPv6 reports whether b is an IPv6address of RFC 3986 section 3.2.2:
// eight groups of one to four hex digits separated by colons, the last two
// of which may be a dotted IPv4 address, with at most one "::" standing for
// one or more groups of zeros.
func validIPv6(b []byte) bool {
	groups, ellipsis := 0, false
	i := 0
	if len(b) >= 2 && b[0] == ':' && b[1] == ':' {
		ellipsis, i = true, 2
		if i == len(b) {
			return true
		}
	}
	for {
		j := i
		for j < len(b) && isHex(b[j]) {
			j++
		}
		if j < len(b) && b[j] == '.' {
			// The IPv4 address must end the literal.
			if !validIPv4(b[i:]) {
				return false
			}
			groups += 2
			break
		}
		if j == i || j-i > 4 {
			return false
		}
		groups++
		if j == len(b) {
			break
		}
		if b[j] != ':' || j+1 == len(b) {
			return false
		}
		j++
		if b[j] == ':' {
			if ellipsis {
				return false
			}
			ellipsis = true
			j++
			if j == len(b) {
				break
			}
		}
		i = j
	}
	if ellipsis {
		return groups <= 7
	}
	return groups == 8
}

// validIPv4 reports whether b is an IPv4address of RFC 3986 section 3.2.2:
// four decimal octets from 0 to 255 without leading zeros.
func validIPv4(b []byte) bool {
	for part := range 4 {
		if part > 0 {
			if len(b) == 0 || b[0] != '.' {
				return false
			}
			b = b[1:]
		}
		n, v := 0, 0
		for n < len(b) && n < 4 && isDigit(b[n]) {
			v = v*10 + int(b[n]-'0')
			n++
		}
		if n == 0 || n > 3 || v > 255 || n > 1 && b[0] == '0' {
			return false
		}
		b = b[n:]
	}
	return len(b) == 0
}
