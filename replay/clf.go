package replay

import (
	"bytes"
	"errors"
)

// The common log format (Apache's and nginx's default access log):
//
//	127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a.gif?x=1 HTTP/1.0" 200 2326
//
// and the combined format, which adds the Referer and User-Agent:
//
//	... 200 2326 "http://example.com/start.html" "Mozilla/4.08"
//
// Fields after these (nginx formats often append request times) are
// ignored. Quoted fields may escape bytes as \" \\ or \xHH, as Apache and
// nginx write them.

var (
	errNoTime         = errors.New("no [time] field")
	errBadCLFTime     = errors.New("time is not dd/Mon/yyyy:hh:mm:ss +hhmm")
	errNoRequest      = errors.New(`no quoted "METHOD /path HTTP/x.y" after the time`)
	errNoRequestLine  = errors.New(`request line is "-" (the client sent no request)`)
	errUnterminated   = errors.New("a quoted field does not end")
	errNoStatus       = errors.New("no status and size after the request")
	errNoRefererAgent = errors.New(`no quoted referer and user agent (combined format); try --format common`)
)

// clfParser parses common and combined log lines.
type clfParser struct {
	combined bool   // require the referer and user agent
	scratch  []byte // unescaped quoted fields
	sawAgent bool   // the last line had a referer and user agent
}

var (
	headerReferer   = []byte("Referer")
	headerUserAgent = []byte("User-Agent")
)

func (p *clfParser) parse(line []byte, e *entry) error {
	p.sawAgent = false
	open := bytes.IndexByte(line, '[')
	if open < 0 {
		return errNoTime
	}
	end := bytes.IndexByte(line[open:], ']')
	if end < 0 {
		return errNoTime
	}
	t, ok := parseCLFTime(line[open+1 : open+end])
	if !ok {
		return errBadCLFTime
	}
	e.time, e.hasTime, e.coarse = t, true, true

	rest := line[open+end+1:]
	if len(rest) < 2 || rest[0] != ' ' || rest[1] != '"' {
		return errNoRequest
	}
	// Room for every unescaped field of the line, so that slices into
	// scratch stay valid while it fills.
	if cap(p.scratch) < len(line) {
		p.scratch = make([]byte, 0, 2*len(line))
	}
	p.scratch = p.scratch[:0]
	request, rest, err := p.quoted(rest[1:])
	if err != nil {
		return err
	}
	if len(request) == 1 && request[0] == '-' {
		return errNoRequestLine
	}
	if err := splitRequestLine(request, e); err != nil {
		return err
	}
	// Status and size: two fields of digits or "-". They are not used,
	// but their presence tells a log line from other text.
	for i := 0; i < 2; i++ {
		if len(rest) < 2 || rest[0] != ' ' {
			return errNoStatus
		}
		rest = rest[1:]
		n := bytes.IndexByte(rest, ' ')
		if n < 0 {
			n = len(rest)
		}
		if !isNumberOrDash(rest[:n]) {
			return errNoStatus
		}
		rest = rest[n:]
	}
	if len(rest) >= 2 && rest[0] == ' ' && rest[1] == '"' {
		referer, r, err := p.quoted(rest[1:])
		if err != nil {
			return err
		}
		if len(r) >= 2 && r[0] == ' ' && r[1] == '"' {
			agent, _, err := p.quoted(r[1:])
			if err != nil {
				return err
			}
			if !isDash(referer) {
				e.addHeader(headerReferer, referer)
			}
			if !isDash(agent) {
				e.addHeader(headerUserAgent, agent)
			}
			p.sawAgent = true
			return nil
		}
	}
	if p.combined {
		return errNoRefererAgent
	}
	return nil
}

// quoted reads a quoted field at b[0] == '"' and returns its unescaped
// content and what follows the closing quote. Content without escapes is a
// slice of b; with escapes it is unescaped into p.scratch.
func (p *clfParser) quoted(b []byte) (content, rest []byte, err error) {
	b = b[1:]
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return nil, nil, errUnterminated
	}
	if esc := bytes.IndexByte(b[:i], '\\'); esc < 0 {
		return b[:i], b[i+1:], nil
	} else {
		i = esc
	}
	start := len(p.scratch)
	p.scratch = append(p.scratch, b[:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return p.scratch[start:], b[i+1:], nil
		case c == '\\' && i+1 < len(b):
			i++
			switch e := b[i]; e {
			case 'x':
				if i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
					p.scratch = append(p.scratch, unhex(b[i+1])<<4|unhex(b[i+2]))
					i += 3
					continue
				}
				p.scratch = append(p.scratch, '\\', 'x')
			case 'n':
				p.scratch = append(p.scratch, '\n')
			case 't':
				p.scratch = append(p.scratch, '\t')
			case '"', '\\':
				p.scratch = append(p.scratch, e)
			default:
				p.scratch = append(p.scratch, '\\', e)
			}
			i++
		default:
			p.scratch = append(p.scratch, c)
			i++
		}
	}
	return nil, nil, errUnterminated
}

func isDash(b []byte) bool { return len(b) == 1 && b[0] == '-' }

func isNumberOrDash(b []byte) bool {
	if isDash(b) {
		return true
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
