package replay

import (
	"encoding/base64"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/gust-http/gust/internal/http1"
)

// JSON lines: one object per line, such as
//
//	{"time":"2026-01-02T03:04:05.25Z","method":"POST","url":"/users?x=1",
//	 "headers":{"Content-Type":"application/json"},"body":"{\"a\":1}"}
//
// Keys: method (default GET), url (a path or an absolute URL) or path,
// headers (an object of strings, or of arrays of strings for repeated
// fields), body or body_base64, and time (RFC 3339 text or Unix seconds).
// Other keys are ignored. The scanner below reads exactly this shape
// without allocating: encoding/json would allocate for every line.

var (
	errNotObject   = errors.New("not a JSON object")
	errBadJSON     = errors.New("malformed JSON")
	errTooDeep     = errors.New("JSON nested more than 64 deep")
	errNoURL       = errors.New(`no "url" or "path"`)
	errNotString   = errors.New(`"method", "url", "path", "body" and header values must be strings`)
	errBadHeaders  = errors.New(`"headers" must be an object of strings or arrays of strings`)
	errBadBase64   = errors.New(`"body_base64" is not standard base64`)
	errTrailing    = errors.New("text after the JSON object")
	errTwoBodies   = errors.New(`both "body" and "body_base64"`)
	errBadJSONTime = errors.New(`"time" is not RFC 3339 text or Unix seconds`)
)

// jsonParser parses JSON lines. It is not safe for concurrent use.
type jsonParser struct {
	b     []byte // the line
	i     int    // read position
	arena []byte // unescaped strings and decoded bodies
}

func (p *jsonParser) parse(line []byte, e *entry) error {
	p.b, p.i = line, 0
	// Unescaping never lengthens a string, and base64 shortens it, so
	// twice the line is room for everything: slices into arena stay valid.
	if cap(p.arena) < 2*len(line) {
		p.arena = make([]byte, 0, 2*len(line))
	}
	p.arena = p.arena[:0]

	p.ws()
	if !p.eat('{') {
		return errNotObject
	}
	var url, path []byte
	var haveURL, havePath, haveBody bool
	err := p.members(func(key []byte) error {
		var err error
		switch string(key) {
		case "method":
			if e.method, err = p.strValue(); err != nil {
				return err
			}
		case "url":
			if url, err = p.strValue(); err != nil {
				return err
			}
			haveURL = true
		case "path":
			if path, err = p.strValue(); err != nil {
				return err
			}
			havePath = true
		case "body":
			if haveBody {
				return errTwoBodies
			}
			if e.body, err = p.strValue(); err != nil {
				return err
			}
			haveBody = true
		case "body_base64":
			if haveBody {
				return errTwoBodies
			}
			enc, err := p.strValue()
			if err != nil {
				return err
			}
			start, need := len(p.arena), base64.StdEncoding.DecodedLen(len(enc))
			p.arena = slices.Grow(p.arena, need)[:start+need]
			n, err := base64.StdEncoding.Decode(p.arena[start:], enc)
			if err != nil {
				return errBadBase64
			}
			p.arena = p.arena[:start+n]
			e.body = p.arena[start:]
			haveBody = true
		case "headers":
			if err := p.headers(e); err != nil {
				return err
			}
		case "time":
			if err := p.time(e); err != nil {
				return err
			}
		default:
			if err := p.skip(0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.ws()
	if p.i != len(p.b) {
		return errTrailing
	}
	if len(e.method) == 0 {
		e.method = methodGET
	} else if !http1.IsToken(e.method) {
		return errBadMethod
	}
	switch {
	case haveURL:
		path = url
	case !havePath:
		return errNoURL
	}
	target, err := originForm(path)
	if err != nil {
		return err
	}
	e.target = target
	return nil
}

var methodGET = []byte("GET")

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// strValue reads a value that must be a string; null reads as empty.
func (p *jsonParser) strValue() ([]byte, error) {
	if p.peek() == 'n' {
		return nil, p.literal("null")
	}
	if p.peek() != '"' {
		return nil, errNotString
	}
	return p.str()
}

// str reads a JSON string and returns its content: a slice of the line
// when it has no escapes, else unescaped into the arena.
func (p *jsonParser) str() ([]byte, error) {
	if !p.eat('"') {
		return nil, errBadJSON
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], nil
		case c == '\\':
			return p.unescape(start)
		case c < 0x20:
			return nil, errBadJSON
		}
		p.i++
	}
	return nil, errBadJSON
}

// unescape finishes a string that has escapes: b[start:p.i] is plain.
func (p *jsonParser) unescape(start int) ([]byte, error) {
	out := len(p.arena)
	p.arena = append(p.arena, p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.arena[out:], nil
		case c < 0x20:
			return nil, errBadJSON
		case c != '\\':
			p.arena = append(p.arena, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return nil, errBadJSON
		}
		esc := p.b[p.i+1]
		p.i += 2
		switch esc {
		case '"', '\\', '/':
			p.arena = append(p.arena, esc)
		case 'b':
			p.arena = append(p.arena, '\b')
		case 'f':
			p.arena = append(p.arena, '\f')
		case 'n':
			p.arena = append(p.arena, '\n')
		case 'r':
			p.arena = append(p.arena, '\r')
		case 't':
			p.arena = append(p.arena, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, errBadJSON
			}
			if 0xd800 <= r && r < 0xdc00 { // a high surrogate: a low one should follow
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if lo, ok := p.hex4(); ok && 0xdc00 <= lo && lo < 0xe000 {
						r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
					} else {
						p.i = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			} else if 0xdc00 <= r && r < 0xe000 {
				r = utf8.RuneError
			}
			p.arena = utf8.AppendRune(p.arena, r)
		default:
			return nil, errBadJSON
		}
	}
	return nil, errBadJSON
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	p.i += 4
	return r, true
}

func (p *jsonParser) literal(word string) error {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return errBadJSON
	}
	p.i += len(word)
	return nil
}

// number reads a JSON number, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
// and returns its text.
func (p *jsonParser) number() ([]byte, error) {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case '1' <= p.peek() && p.peek() <= '9':
		p.digits()
	default:
		return nil, errBadJSON
	}
	if p.eat('.') && p.digits() == 0 {
		return nil, errBadJSON
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if p.digits() == 0 {
			return nil, errBadJSON
		}
	}
	return p.b[start:p.i], nil
}

// digits reads over decimal digits and returns how many.
func (p *jsonParser) digits() int {
	start := p.i
	for p.i < len(p.b) && isDigit(p.b[p.i]) {
		p.i++
	}
	return p.i - start
}

// skip reads over any value.
func (p *jsonParser) skip(depth int) error {
	if depth > 64 {
		return errTooDeep
	}
	switch p.peek() {
	case '"':
		_, err := p.str()
		return err
	case '{':
		p.i++
		return p.members(func([]byte) error { return p.skip(depth + 1) })
	case '[':
		p.i++
		return p.elements(func() error { return p.skip(depth + 1) })
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	_, err := p.number()
	return err
}

// headers reads {"Name": "value", "Other": ["a", "b"]}.
func (p *jsonParser) headers(e *entry) error {
	if p.peek() == 'n' {
		return p.literal("null")
	}
	if !p.eat('{') {
		return errBadHeaders
	}
	return p.members(func(name []byte) error {
		value := func() error {
			if p.peek() != '"' {
				return errBadHeaders
			}
			value, err := p.str()
			if err != nil {
				return err
			}
			e.addHeader(name, value)
			return nil
		}
		if p.eat('[') {
			return p.elements(value)
		}
		return value()
	})
}

// members reads an object's members after its '{' up to its '}', calling
// member with each key once the parser is at the key's value; member reads
// the value.
func (p *jsonParser) members(member func(key []byte) error) error {
	return p.sequence('}', func() error {
		key, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if !p.eat(':') {
			return errBadJSON
		}
		p.ws()
		return member(key)
	})
}

// elements reads an array's elements after its '[' up to its ']', calling
// element at each one; element reads it.
func (p *jsonParser) elements(element func() error) error { return p.sequence(']', element) }

// sequence reads comma-separated items up to closer, calling item at each.
func (p *jsonParser) sequence(closer byte, item func() error) error {
	for first := true; ; first = false {
		p.ws()
		if p.eat(closer) {
			return nil
		}
		if !first && !p.eat(',') {
			return errBadJSON
		}
		p.ws()
		if err := item(); err != nil {
			return err
		}
	}
}

// time reads "time": RFC 3339 text or Unix seconds.
func (p *jsonParser) time(e *entry) error {
	var ok bool
	switch c := p.peek(); {
	case c == '"':
		s, err := p.str()
		if err != nil {
			return err
		}
		e.time, e.coarse, ok = parseRFC3339(s)
	case c == 'n':
		return p.literal("null")
	case isDigit(c):
		num, err := p.number()
		if err != nil {
			return err
		}
		e.time, e.coarse, ok = parseUnixSeconds(num)
	default:
		return errBadJSONTime
	}
	if !ok {
		return errBadJSONTime
	}
	e.hasTime = true
	return nil
}
