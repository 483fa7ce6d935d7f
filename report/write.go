package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gust-http/gust/result"
)

// Formats lists the report formats Write knows, in the order help texts
// name them: the human summary, the JSON document (with every histogram,
// for gust merge), the per-second timeline as CSV, and the HTML page.
var Formats = []string{"text", "json", "csv", "html"}

// writers holds each format's writer; Formats lists their names in order.
var writers = map[string]func(io.Writer, *result.Result) error{
	"text": Text,
	"json": JSON,
	"csv":  CSV,
	"html": HTML,
}

// Write writes r to w in format, one of Formats. gust load, gust replay
// and gust merge all report through it.
func Write(w io.Writer, format string, r *result.Result) error {
	write, ok := writers[format]
	if !ok {
		return fmt.Errorf("unknown report format %q: give one of %s", format, strings.Join(Formats, ", "))
	}
	return write(w, r)
}

// CheckFormat returns an error of one line unless format is one of
// formats (Formats, or a command's subset of them).
func CheckFormat(format string, formats []string) error {
	if slices.Contains(formats, format) {
		return nil
	}
	return fmt.Errorf("-o must be %s, got %q", orList(formats), format)
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
