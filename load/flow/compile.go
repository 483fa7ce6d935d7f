package flow

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Options is what a flow is compiled against besides its file.
type Options struct {
	// File names the flow file in errors.
	File string
	// Columns and Rows are the CSV data (--data-csv): each column is a
	// variable, filled from the user's row. Nil without data.
	Columns []string
	Rows    [][]string
	// PerIteration gives each iteration a row of its own; otherwise each
	// user keeps one row for the run.
	PerIteration bool
	// Header holds fields sent with every step, before the step's own
	// (gust load -H).
	Header [][2]string
	// Host is the target's host, with its port unless the scheme's
	// default: a redirect to an absolute URL on another host is not
	// followed. Empty: any host's is, as a path on the target.
	Host string
}

// Flow is a compiled flow: its steps with their templates, captures and
// checks, and the program of once steps and iteration steps that every
// User runs. A Flow is read-only once compiled and shared by every loop.
type Flow struct {
	steps   []step
	once    []op
	main    []op
	vars    []string // by number: vu, iter, the columns, then the captures
	ncols   int
	rows    [][]string
	perIter bool
	cookies bool
	host    string      // Options.Host, its default port dropped
	checks  []checkName // by check id, in the flow's order
	slots   int         // repeat counters a user needs
}

// Variables 0 and 1 are the user's number and iteration.
const (
	varVU = iota
	varIter
	firstColumn
)

// checkName names one check of one step, for the report.
type checkName struct{ step, check string }

// step is one request of the flow, compiled.
type step struct {
	name     string
	method   string
	url      tmpl
	headers  []header
	body     tmpl
	captures []capture
	checks   []check
	think    Think
	abort    bool
	readBody bool // a capture or check reads the answer's body
	// redirects is how many redirects the step follows (redirect.go).
	redirects int
}

type header struct {
	name  string
	value tmpl
}

// tmpl is a template compiled into literals and variable numbers.
type tmpl []tpart

// tpart is a literal (v < 0) or the value of variable v.
type tpart struct {
	lit string
	v   int
}

// op is one instruction of a user's program.
type op struct {
	kind opKind
	arg  int   // opStep: step; opJump: target; opRepeat/opLoop: counter slot
	n    int   // opRepeat: count; opLoop: body start
	cum  []int // opChoose: cumulative weights
	to   []int // opChoose: each alternative's start
}

type opKind uint8

const (
	opStep   opKind = iota
	opChoose        // pick an alternative by weight, jump to it
	opJump          // go to arg (an alternative's end)
	opRepeat        // set counter arg to n
	opLoop          // count down counter arg; back to n while it lasts
)

// Compile parses and compiles a flow file (YAML or JSON) against opts.
// Every error is one line naming the file, the line and the field.
func Compile(data []byte, opts Options) (*Flow, error) {
	file := opts.File
	if file == "" {
		file = "flow"
	}
	spec, err := parseFile(file, data)
	if err != nil {
		return nil, err
	}
	f := &Flow{rows: opts.Rows, perIter: opts.PerIteration, cookies: spec.cookies, ncols: len(opts.Columns),
		host: strings.ToLower(trimDefaultPort(opts.Host))}
	f.vars = append([]string{"vu", "iter"}, opts.Columns...)
	if len(opts.Columns) > 0 && len(opts.Rows) == 0 {
		return nil, fmt.Errorf("%s: the CSV data has columns but no rows", file)
	}
	// Captures are variables wherever they are used: collect them first.
	walk(spec.once, func(s *stepSpec) { f.addCaptures(s) })
	walk(spec.steps, func(s *stepSpec) { f.addCaptures(s) })
	c := compiler{f: f, file: file, header: opts.Header, redirects: spec.redirects}
	if f.once, err = c.block(nil, spec.once); err != nil {
		return nil, err
	}
	if f.main, err = c.block(nil, spec.steps); err != nil {
		return nil, err
	}
	return f, nil
}

func walk(items []itemSpec, fn func(*stepSpec)) {
	for _, it := range items {
		switch {
		case it.step != nil:
			fn(it.step)
		case it.choose != nil:
			for _, a := range it.choose {
				walk(a.steps, fn)
			}
		default:
			walk(it.steps, fn)
		}
	}
}

func (f *Flow) addCaptures(s *stepSpec) {
	for _, c := range s.capture {
		if f.varIndex(c.name) < 0 {
			f.vars = append(f.vars, c.name)
		}
	}
}

func (f *Flow) varIndex(name string) int {
	for i, v := range f.vars {
		if v == name {
			return i
		}
	}
	return -1
}

type compiler struct {
	f         *Flow
	file      string
	header    [][2]string // sent with every step, first
	redirects int         // the file's redirects; -1: not given
}

// block appends the program of items to prog.
func (c *compiler) block(prog []op, items []itemSpec) ([]op, error) {
	var err error
	for _, it := range items {
		switch {
		case it.step != nil:
			var id int
			if id, err = c.step(it.step); err != nil {
				return nil, err
			}
			prog = append(prog, op{kind: opStep, arg: id})
		case it.choose != nil:
			at := len(prog)
			prog = append(prog, op{kind: opChoose})
			var jumps []int
			sum := 0
			for _, a := range it.choose {
				sum += a.weight
				prog[at].cum = append(prog[at].cum, sum)
				prog[at].to = append(prog[at].to, len(prog))
				if prog, err = c.block(prog, a.steps); err != nil {
					return nil, err
				}
				jumps = append(jumps, len(prog))
				prog = append(prog, op{kind: opJump})
			}
			for _, j := range jumps {
				prog[j].arg = len(prog)
			}
		default:
			slot := c.f.slots
			c.f.slots++
			prog = append(prog, op{kind: opRepeat, arg: slot, n: it.repeat})
			body := len(prog)
			if prog, err = c.block(prog, it.steps); err != nil {
				return nil, err
			}
			prog = append(prog, op{kind: opLoop, arg: slot, n: body})
		}
	}
	return prog, nil
}

// step compiles s and returns its number.
func (c *compiler) step(s *stepSpec) (int, error) {
	f := c.f
	for _, o := range f.steps {
		if o.name == s.name {
			return 0, parseError(c.file, s.line, "name", "step %q is named twice: names must differ, each is an endpoint", s.name)
		}
	}
	st := step{name: s.name, method: s.method, think: s.think, abort: s.abort, redirects: defaultRedirects}
	switch {
	case s.redirects >= 0:
		st.redirects = s.redirects
	case expects3xx(s.check):
		st.redirects = 0 // the redirect is the answer it checks
	case c.redirects >= 0:
		st.redirects = c.redirects
	}
	var err error
	if st.url, err = c.tmpl(s, s.url); err != nil {
		return 0, err
	}
	if !strings.HasPrefix(s.url.text, "/") && !strings.HasPrefix(s.url.text, "{{") {
		return 0, parseError(c.file, s.url.line, "url", "step %q: want a path such as /login (the host is the target's)", s.name)
	}
	if st.body, err = c.tmpl(s, s.body); err != nil {
		return 0, err
	}
	for _, h := range c.header {
		st.headers = append(st.headers, header{name: h[0], value: tmpl{{lit: h[1], v: -1}}})
	}
	for _, h := range s.headers {
		v, err := c.tmpl(s, h.value)
		if err != nil {
			return 0, err
		}
		st.headers = append(st.headers, header{name: h.name, value: v})
	}
	id := len(f.steps)
	for _, cs := range s.capture {
		cp := capture{kind: cs.kind, v: f.varIndex(cs.name), arg: cs.arg}
		switch cs.kind {
		case captureJSON:
			cp.path, _ = parsePath(cs.arg)
		case captureRegex:
			re, err := regexp.Compile(cs.arg)
			if err != nil {
				return 0, parseError(c.file, cs.line, "capture."+cs.name, "step %q: %v", s.name, err)
			}
			cp.re = re
		}
		st.captures = append(st.captures, cp)
	}
	for _, cs := range s.check {
		ck := check{id: len(f.checks), kind: cs.kind, status: cs.status, arg: cs.arg, want: cs.want, exists: cs.exists, limit: int64(cs.limit)}
		if cs.kind == checkJSON {
			ck.path, _ = parsePath(cs.arg)
		}
		f.checks = append(f.checks, checkName{step: s.name, check: ck.name()})
		st.checks = append(st.checks, ck)
	}
	for _, cp := range st.captures {
		st.readBody = st.readBody || cp.kind != captureHeader
	}
	for _, ck := range st.checks {
		st.readBody = st.readBody || ck.kind == checkBody || ck.kind == checkJSON
	}
	f.steps = append(f.steps, st)
	return id, nil
}

// tmpl compiles t's {{variable}} placeholders against the flow's
// variables; an unknown one names the step.
func (c *compiler) tmpl(s *stepSpec, t textSpec) (tmpl, error) {
	var out tmpl
	text := t.text
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+2:], "}}")
		if j < 0 {
			return nil, parseError(c.file, t.line, t.field, "step %q: \"{{\" without its closing \"}}\"", s.name)
		}
		name := strings.TrimSpace(text[i+2 : i+2+j])
		v := c.f.varIndex(name)
		if v < 0 {
			return nil, parseError(c.file, t.line, t.field, "step %q: unknown variable {{%s}} (known: %s)", s.name, name, strings.Join(c.f.vars, ", "))
		}
		if i > 0 {
			out = append(out, tpart{lit: text[:i], v: -1})
		}
		out = append(out, tpart{v: v})
		text = text[i+2+j+2:]
	}
	if text != "" {
		out = append(out, tpart{lit: text, v: -1})
	}
	return out, nil
}

// append appends t filled with vals to dst.
func (t tmpl) append(dst []byte, vals [][]byte) []byte {
	for _, p := range t {
		if p.v < 0 {
			dst = append(dst, p.lit...)
		} else {
			dst = append(dst, vals[p.v]...)
		}
	}
	return dst
}

// Steps returns the steps' names, by step number: each is an endpoint.
func (f *Flow) Steps() []string {
	names := make([]string, len(f.steps))
	for i, s := range f.steps {
		names[i] = s.name
	}
	return names
}

// ReadsBody reports whether step i's captures or checks read its
// answer's body; the other steps' bodies need not be kept.
func (f *Flow) ReadsBody(i int) bool { return f.steps[i].readBody }

// Method returns step i's method.
func (f *Flow) Method(i int) string { return f.steps[i].method }

// Variables returns the flow's variable names, by number.
func (f *Flow) Variables() []string { return f.vars }

// maxThink bounds how long a think may wait, so that a user never
// sleeps past any sensible run.
const maxThink = int64(time.Hour)
