package table

import (
	"html"
	"strings"
)

// Cell is one cell of an HTML row: its text, escaped when written, and
// raw attributes for its tag, such as `class="l"`, or none.
type Cell struct {
	Text  string
	Attrs string
}

// Cells returns one attribute-less Cell for each text.
func Cells(texts ...string) []Cell {
	cs := make([]Cell, len(texts))
	for i, t := range texts {
		cs[i].Text = t
	}
	return cs
}

// HTMLRow writes one <tr> of cells, as <th> when head is set, else <td>.
func HTMLRow(b *strings.Builder, head bool, cells ...Cell) {
	tag := "td"
	if head {
		tag = "th"
	}
	b.WriteString("<tr>")
	for _, c := range cells {
		b.WriteString("<" + tag)
		if c.Attrs != "" {
			b.WriteString(" " + c.Attrs)
		}
		b.WriteString(">" + html.EscapeString(c.Text) + "</" + tag + ">")
	}
	b.WriteString("</tr>")
}

// MarkdownHead writes a Markdown table's header row and the rule below it.
func MarkdownHead(b *strings.Builder, columns ...string) {
	MarkdownRow(b, columns...)
	b.WriteString("|" + strings.Repeat("---|", len(columns)) + "\n")
}

// MarkdownRow writes one Markdown table row; a "|" in a cell is escaped so
// that it stays in its cell.
func MarkdownRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
	}
	b.WriteString("\n")
}
