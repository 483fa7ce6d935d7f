package flow

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The flow file, read from YAML (JSON is YAML too) into specs that keep
// each field's line, so that every error names the line and the field.

// fileSpec is a flow file as written.
type fileSpec struct {
	once      []itemSpec
	steps     []itemSpec
	cookies   bool
	redirects int // -1: not given
}

// itemSpec is one entry of a steps list: a step, a choice or a repeat.
type itemSpec struct {
	line   int
	step   *stepSpec
	choose []altSpec // weighted alternatives
	repeat int       // with steps: the block repeated
	steps  []itemSpec
}

// altSpec is one alternative of a choose.
type altSpec struct {
	line   int
	weight int
	steps  []itemSpec
}

// stepSpec is one request of the flow as written.
type stepSpec struct {
	line      int
	name      string
	method    string
	url       textSpec
	headers   []fieldSpec
	body      textSpec
	capture   []captureSpec
	check     []checkSpec
	think     Think
	abort     bool
	redirects int // -1: not given
}

// textSpec is a template's text and where it was written.
type textSpec struct {
	text  string
	line  int
	field string
}

// fieldSpec is one header field to send.
type fieldSpec struct {
	name  string
	value textSpec
}

// captureSpec is one variable taken from a response.
type captureSpec struct {
	line int
	name string
	kind captureKind
	arg  string
}

// checkSpec is one check of a response.
type checkSpec struct {
	line   int
	kind   checkKind
	arg    string // JSON path, header name, body text
	want   string // JSON value or header value expected ("" with exists)
	status []int
	limit  time.Duration
	exists bool
}

// maxCount bounds repeat counts and weights, so that counters and sums
// of weights never overflow.
const maxCount = 1_000_000

// parseError is a flow file's one-line error: file, line, field, what.
func parseError(file string, line int, field, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if field != "" {
		msg = field + ": " + msg
	}
	return fmt.Errorf("%s:%d: %s", file, line, msg)
}

// parser walks the document, naming file in its errors.
type parser struct{ file string }

func parseFile(file string, data []byte) (*fileSpec, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", "; ")
		var line int
		if n, _ := fmt.Sscanf(msg, "line %d: ", &line); n == 1 {
			return nil, fmt.Errorf("%s:%d: %s", file, line, msg[strings.Index(msg, ": ")+2:])
		}
		return nil, fmt.Errorf("%s: %s", file, msg)
	}
	p := parser{file: file}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty flow: give a steps list", file)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, p.err(root, "", "a flow is a mapping with a steps list")
	}
	f := &fileSpec{cookies: true, redirects: -1}
	seen := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var err error
		switch k.Value {
		case "steps":
			seen = true
			f.steps, err = p.items(v, "steps")
		case "once":
			f.once, err = p.items(v, "once")
		case "cookies":
			f.cookies, err = p.boolean(v, "cookies")
		case "redirects":
			f.redirects, err = p.redirects(v)
		default:
			err = p.err(k, k.Value, "unknown field (want steps, once, cookies, redirects)")
		}
		if err != nil {
			return nil, err
		}
	}
	if !seen || len(f.steps) == 0 {
		return nil, p.err(root, "steps", "a flow needs at least one step")
	}
	return f, nil
}

func (p *parser) err(n *yaml.Node, field, format string, a ...any) error {
	return parseError(p.file, n.Line, field, format, a...)
}

func (p *parser) items(n *yaml.Node, field string) ([]itemSpec, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, p.err(n, field, "want a list of at least one step")
	}
	var out []itemSpec
	for _, c := range n.Content {
		it, err := p.item(c)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

func (p *parser) item(n *yaml.Node) (itemSpec, error) {
	if n.Kind != yaml.MappingNode {
		return itemSpec{}, p.err(n, "step", "want a mapping (name, method, url, ...)")
	}
	it := itemSpec{line: n.Line}
	switch {
	case lookup(n, "choose") != nil:
		v := lookup(n, "choose")
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return it, p.err(v, "choose", "want a list of alternatives, each with weight and steps")
		}
		for _, a := range v.Content {
			alt, err := p.alt(a)
			if err != nil {
				return it, err
			}
			it.choose = append(it.choose, alt)
		}
		return it, p.only(n, "choose")
	case lookup(n, "repeat") != nil:
		v := lookup(n, "repeat")
		r, err := strconv.Atoi(v.Value)
		if err != nil || r < 1 || r > maxCount {
			return it, p.err(v, "repeat", "want a count from 1 to %d, not %q", maxCount, v.Value)
		}
		it.repeat = r
		s := lookup(n, "steps")
		if s == nil {
			return it, p.err(n, "repeat", "a repeat needs its steps")
		}
		if it.steps, err = p.items(s, "steps"); err != nil {
			return it, err
		}
		return it, p.only(n, "repeat", "steps")
	}
	st, err := p.step(n)
	it.step = st
	return it, err
}

// only refuses fields of n other than allowed.
func (p *parser) only(n *yaml.Node, allowed ...string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ok := false
		for _, a := range allowed {
			ok = ok || k.Value == a
		}
		if !ok {
			return p.err(k, k.Value, "not allowed beside %s", allowed[0])
		}
	}
	return nil
}

func (p *parser) alt(n *yaml.Node) (altSpec, error) {
	a := altSpec{line: n.Line, weight: 1}
	if n.Kind != yaml.MappingNode {
		return a, p.err(n, "choose", "want an alternative with weight and steps")
	}
	if w := lookup(n, "weight"); w != nil {
		v, err := strconv.Atoi(w.Value)
		if err != nil || v < 1 || v > maxCount {
			return a, p.err(w, "weight", "want a whole number from 1 to %d, not %q", maxCount, w.Value)
		}
		a.weight = v
	}
	s := lookup(n, "steps")
	if s == nil {
		return a, p.err(n, "choose", "an alternative needs its steps")
	}
	var err error
	if a.steps, err = p.items(s, "steps"); err != nil {
		return a, err
	}
	return a, p.only(n, "steps", "weight")
}

func (p *parser) step(n *yaml.Node) (*stepSpec, error) {
	s := &stepSpec{line: n.Line, method: "GET", redirects: -1}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "name":
			s.name, err = p.scalar(v, "name")
		case "method":
			s.method, err = p.scalar(v, "method")
			s.method = strings.ToUpper(s.method)
			if err == nil && !isToken(s.method) {
				err = p.err(v, "method", "want a method such as GET or POST, not %q", s.method)
			}
		case "url":
			s.url, err = p.text(v, "url")
		case "body":
			s.body, err = p.text(v, "body")
		case "headers":
			s.headers, err = p.headers(v)
		case "capture":
			s.capture, err = p.captures(v)
		case "check":
			s.check, err = p.checks(v)
		case "think":
			var t string
			if t, err = p.scalar(v, "think"); err == nil {
				if s.think, err = ParseThink(t); err != nil {
					err = p.err(v, "think", "%v", err)
				}
			}
		case "abort":
			s.abort, err = p.boolean(v, "abort")
		case "redirects":
			s.redirects, err = p.redirects(v)
		default:
			err = p.err(k, k.Value, "unknown field of a step (want name, method, url, headers, body, capture, check, think, abort, redirects)")
		}
		if err != nil {
			return nil, err
		}
	}
	if s.url.text == "" {
		return nil, p.err(n, "url", "a step needs a url, such as /login")
	}
	if s.name == "" {
		s.name = s.method + " " + s.url.text
	}
	return s, nil
}

// redirects reads how many redirects a step follows.
func (p *parser) redirects(n *yaml.Node) (int, error) {
	r, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || r < 0 || r > maxRedirects {
		return 0, p.err(n, "redirects", "want how many redirects to follow, from 0 to %d, not %q", maxRedirects, n.Value)
	}
	return r, nil
}

func (p *parser) scalar(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.err(n, field, "want a single value")
	}
	return n.Value, nil
}

func (p *parser) text(n *yaml.Node, field string) (textSpec, error) {
	v, err := p.scalar(n, field)
	return textSpec{text: v, line: n.Line, field: field}, err
}

func (p *parser) boolean(n *yaml.Node, field string) (bool, error) {
	b, err := strconv.ParseBool(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return false, p.err(n, field, "want true or false")
	}
	return b, nil
}

func (p *parser) headers(n *yaml.Node) ([]fieldSpec, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.err(n, "headers", "want a mapping of field names to values")
	}
	var out []fieldSpec
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		t, err := p.text(v, "headers."+k.Value)
		if err != nil {
			return nil, err
		}
		if !isToken(k.Value) {
			return nil, p.err(k, "headers", "%q is not a header field name", k.Value)
		}
		if strings.EqualFold(k.Value, "Content-Length") || strings.EqualFold(k.Value, "Transfer-Encoding") {
			return nil, p.err(k, "headers."+k.Value, "set from the body: drop it")
		}
		out = append(out, fieldSpec{name: k.Value, value: t})
	}
	return out, nil
}

func (p *parser) captures(n *yaml.Node) ([]captureSpec, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.err(n, "capture", "want a mapping of variable names to {json: path}, {header: Name} or {regex: '...'}")
	}
	var out []captureSpec
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := "capture." + k.Value
		if !isName(k.Value) {
			return nil, p.err(k, field, "a variable name is letters, digits and _")
		}
		if v.Kind != yaml.MappingNode || len(v.Content) != 2 {
			return nil, p.err(v, field, "want one of {json: path}, {header: Name}, {regex: '...'}")
		}
		c := captureSpec{line: v.Line, name: k.Value, arg: v.Content[1].Value}
		switch v.Content[0].Value {
		case "json":
			c.kind = captureJSON
			if _, err := parsePath(c.arg); err != nil {
				return nil, p.err(v, field, "%v", err)
			}
		case "header":
			c.kind = captureHeader
		case "regex":
			c.kind = captureRegex
		default:
			return nil, p.err(v, field, "unknown capture %q (want json, header or regex)", v.Content[0].Value)
		}
		out = append(out, c)
	}
	return out, nil
}

func (p *parser) checks(n *yaml.Node) ([]checkSpec, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.err(n, "check", "want a mapping: status, body, json, header, latency")
	}
	var out []checkSpec
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := "check." + k.Value
		c := checkSpec{line: v.Line}
		switch k.Value {
		case "status":
			c.kind = checkStatus
			vals := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				vals = v.Content
			}
			for _, s := range vals {
				code, err := strconv.Atoi(s.Value)
				if err != nil || code < 100 || code > 999 {
					return nil, p.err(s, field, "want a status code or a list of them, not %q", s.Value)
				}
				c.status = append(c.status, code)
			}
		case "body":
			c.kind = checkBody
			m := mapping(v)
			if m["contains"] == nil || len(m) != 1 {
				return nil, p.err(v, field, "want {contains: text}")
			}
			c.arg = m["contains"].Value
		case "json":
			c.kind = checkJSON
			m := mapping(v)
			if m["path"] == nil || (m["equals"] == nil) == (m["exists"] == nil) || len(m) != 2 {
				return nil, p.err(v, field, "want {path: a.b, equals: value} or {path: a.b, exists: true}")
			}
			c.arg = m["path"].Value
			if _, err := parsePath(c.arg); err != nil {
				return nil, p.err(v, field, "%v", err)
			}
			if e := m["equals"]; e != nil {
				c.want = e.Value
			} else {
				b, err := p.boolean(m["exists"], field+".exists")
				if err != nil {
					return nil, err
				}
				c.exists = b
				c.want = "\x00exists"
			}
		case "header":
			c.kind = checkHeader
			if v.Kind != yaml.MappingNode || len(v.Content) != 2 {
				return nil, p.err(v, field, "want {Name: value} (an empty value: the field is present)")
			}
			c.arg, c.want = v.Content[0].Value, v.Content[1].Value
		case "latency":
			c.kind = checkLatency
			d, err := time.ParseDuration(v.Value)
			if err != nil || d <= 0 {
				return nil, p.err(v, field, "want a duration such as 200ms, not %q", v.Value)
			}
			c.limit = d
		default:
			return nil, p.err(k, field, "unknown check (want status, body, json, header, latency)")
		}
		out = append(out, c)
	}
	return out, nil
}

// lookup returns the value of key in the mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mapping returns the scalar values of the mapping n by key (nil if n is
// not a mapping).
func mapping(n *yaml.Node) map[string]*yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	m := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(n.Content); i += 2 {
		m[n.Content[i].Value] = n.Content[i+1]
	}
	return m
}

// isToken reports whether s is an HTTP token (RFC 9110 section 5.6.2):
// a method or a field name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
