package http1

// parseStatusLine parses "HTTP/x.y SP 3DIGIT [SP reason]" (RFC 9112 section 4)
// into h.Major, h.Minor and h.StatusCode.
func (h *ResponseHead) parseStatusLine(line []byte) error {
	if len(line) < len("HTTP/") || string(line[:5]) != "HTTP/" {
		return ErrBadStatusLine
	}
	if len(line) > 5 && isDigit(line[5]) && line[5] != '1' {
		return ErrBadVersion
	}
	// "HTTP/1.1 200" is the shortest valid status line.
	if len(line) < 12 || line[5] != '1' || line[6] != '.' || !isDigit(line[7]) || line[8] != ' ' {
		return ErrBadStatusLine
	}
	c0, c1, c2 := line[9], line[10], line[11]
	if !isDigit(c0) || !isDigit(c1) || !isDigit(c2) || c0 == '0' {
		return ErrBadStatusLine
	}
	if len(line) > 12 && (line[12] != ' ' || !isText(line[13:])) {
		return ErrBadStatusLine
	}
	h.Major = 1
	h.Minor = int(line[7] - '0')
	h.StatusCode = int(c0-'0')*100 + int(c1-'0')*10 + int(c2-'0')
	return nil
}

// isDigit reports whether c is an ASCII decimal digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
