package report

import (
	"encoding/json"
	"io"

	"github.com/gust-http/gust/load"
)

// JSON writes the result as one indented JSON object, shaped by Summary
// and followed by a newline.
func JSON(w io.Writer, r *load.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// URLs often hold '&'; keep them readable rather than \u0026.
	enc.SetEscapeHTML(false)
	return enc.Encode(NewSummary(r))
}
