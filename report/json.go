package report

import (
	"io"

	"github.com/gust-http/gust/result"
)

// JSON writes the result as one indented JSON object, shaped by Summary
// and followed by a newline.
func JSON(w io.Writer, r *result.Result) error {
	return encodeJSON(w, NewSummary(r))
}
