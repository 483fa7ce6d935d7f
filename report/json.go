package report

import (
	"io"

	"github.com/gust-http/gust/load"
)

// JSON writes the result as one indented JSON object, shaped by Summary
// and followed by a newline.
func JSON(w io.Writer, r *load.Result) error {
	return encodeJSON(w, NewSummary(r))
}
