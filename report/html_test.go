package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestHTML(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r := f.result()
			var buf bytes.Buffer
			if err := HTML(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden(t, "html_"+f.name+".golden", buf.Bytes())
			page := buf.String()
			for _, bad := range []string{"<script", "src=", "href=", "NaN", "Inf"} {
				if strings.Contains(page, bad) {
					t.Errorf("page holds %q: it must be self-contained and finite", bad)
				}
			}
			if strings.Count(page, "<svg class=\"chart\"") != 2 {
				t.Error("page lacks its two timeline charts")
			}
			if got, want := strings.Contains(page, "<h2>Agents</h2>"), len(r.Agents) > 0; got != want {
				t.Errorf("agents table shown = %v, want %v", got, want)
			}
		})
	}
}

func TestHTMLEscapesWhatItShows(t *testing.T) {
	r := closedRun()
	r.URL = `http://127.0.0.1:8080/?q=<script>alert(1)</script>&x="y"`
	var buf bytes.Buffer
	if err := HTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<script>") {
		t.Error("the URL went into the page unescaped")
	}
}

func TestHTMLReportsWriteErrors(t *testing.T) {
	if err := HTML(failingWriter{}, closedRun()); err == nil {
		t.Error("HTML to a failing writer returned no error")
	}
}
