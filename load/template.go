package load

import (
	"errors"
	"fmt"
	"strings"
)

// Template is text with {{column}} placeholders, compiled once into
// literal segments and column references so that filling it for a row
// only appends: no parsing, no formatting, no allocation once the
// destination has grown. A template without placeholders is static.
type Template struct {
	segs []tmplPart
}

// tmplPart is a literal (col < 0) or a reference to column col.
type tmplPart struct {
	lit string
	col int
}

// ErrUnclosedPlaceholder refuses a "{{" without its "}}".
var ErrUnclosedPlaceholder = errors.New(`"{{" without its closing "}}"`)

// Placeholders returns the column names s refers to, in order, repeats
// included; an error for a malformed placeholder.
func Placeholders(s string) ([]string, error) {
	var names []string
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return names, nil
		}
		s = s[i+2:]
		j := strings.Index(s, "}}")
		if j < 0 {
			return nil, ErrUnclosedPlaceholder
		}
		name := strings.TrimSpace(s[:j])
		if name == "" || strings.Contains(name, "{{") {
			return nil, fmt.Errorf("placeholder {{%s}} names no column: write {{column}}", s[:j])
		}
		names = append(names, name)
		s = s[j+2:]
	}
}

// CompileTemplate compiles s against the data's columns: each {{name}}
// (spaces around the name allowed) must name one of columns, or the
// error says which does not.
func CompileTemplate(s string, columns []string) (Template, error) {
	var t Template
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			return Template{}, ErrUnclosedPlaceholder
		}
		raw := s[i+2 : i+2+j]
		name := strings.TrimSpace(raw)
		if name == "" || strings.Contains(name, "{{") {
			return Template{}, fmt.Errorf("placeholder {{%s}} names no column: write {{column}}", raw)
		}
		col := indexOf(columns, name)
		if col < 0 {
			return Template{}, missingColumn(name, columns)
		}
		if i > 0 {
			t.segs = append(t.segs, tmplPart{lit: s[:i], col: -1})
		}
		t.segs = append(t.segs, tmplPart{col: col})
		s = s[i+2+j+2:]
	}
	if s != "" || len(t.segs) == 0 {
		t.segs = append(t.segs, tmplPart{lit: s, col: -1})
	}
	return t, nil
}

func missingColumn(name string, columns []string) error {
	if len(columns) == 0 {
		return fmt.Errorf("placeholder {{%s}} needs data: give a CSV file with a %q column (--data-csv)", name, name)
	}
	return fmt.Errorf("placeholder {{%s}} names no column of the data (its columns: %s)", name, strings.Join(columns, ", "))
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Static reports whether t has no placeholders.
func (t *Template) Static() bool {
	for _, s := range t.segs {
		if s.col >= 0 {
			return false
		}
	}
	return true
}

// Columns returns the columns t refers to, as indexes, repeats included.
func (t *Template) Columns() []int {
	var cols []int
	for _, s := range t.segs {
		if s.col >= 0 {
			cols = append(cols, s.col)
		}
	}
	return cols
}

// Append appends t filled with row's cells to dst.
func (t *Template) Append(dst []byte, row []string) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		if s.col < 0 {
			dst = append(dst, s.lit...)
		} else {
			dst = append(dst, row[s.col]...)
		}
	}
	return dst
}
