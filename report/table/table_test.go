package table

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []string
		rows [][]string
		want string
	}{
		{"a head and its rule", []string{"a", "b"}, nil, "| a | b |\n|---|---|\n"},
		{"rows under it", []string{"x"}, [][]string{{"1"}, {"2"}}, "| x |\n|---|\n| 1 |\n| 2 |\n"},
		{"a bar in a cell is escaped", []string{"e"}, [][]string{{"bad | flag"}}, "| e |\n|---|\n| bad \\| flag |\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			MarkdownHead(&b, tc.head...)
			for _, r := range tc.rows {
				MarkdownRow(&b, r...)
			}
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

func TestHTMLRow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		head  bool
		cells []Cell
		want  string
	}{
		{"a head row", true, Cells("a", "b"), "<tr><th>a</th><th>b</th></tr>"},
		{"a row escapes its text", false, Cells("<x>", "&"), "<tr><td>&lt;x&gt;</td><td>&amp;</td></tr>"},
		{"attributes stay raw", false, []Cell{{Text: "n", Attrs: `class="l"`}}, `<tr><td class="l">n</td></tr>`},
		{"no cells", false, nil, "<tr></tr>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			HTMLRow(&b, tc.head, tc.cells...)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
