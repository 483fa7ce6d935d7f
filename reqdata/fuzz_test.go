package reqdata

import (
	"strings"
	"testing"

	"github.com/gust-http/gust/load"
)

// The fuzz targets check that no input panics or hangs, that what is
// accepted is well formed, and that errors are one line naming the file.

func FuzzTargetsLines(f *testing.F) {
	for _, s := range []string{"GET /users/{{id}} weight=2\nAccept: a\n", "POST / @body.json\n", "PUT http://h:8080/x {\"a\":1}\n", "X: y\n", "GET\n", "# c\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTargets(t, s, Lines) })
}

func FuzzTargetsJSON(f *testing.F) {
	for _, s := range []string{`{"method":"POST","url":"/u","headers":{"A":["1","2"]},"body":"x","weight":2}`,
		`{"path":"/p","body_base64":"aGk="}`, `{"url":"http://h:8080/?q"}`, `{`, `[]`, `{"headers":{"a":{}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTargets(t, s, JSON) })
}

func checkTargets(t *testing.T, s string, format Format) {
	reqs, err := ParseTargets(strings.NewReader(s), Options{Name: "f", Format: format, Origin: "http://h:8080", ReadFile: readFake})
	if err != nil {
		if !strings.HasPrefix(err.Error(), "f") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q: want one line starting with the file's name", err)
		}
		return
	}
	total := 0
	for _, r := range reqs {
		if !strings.HasPrefix(r.Target, "/") || r.Weight < 0 || r.Where == "" {
			t.Fatalf("accepted %+v", r)
		}
		total += r.Weight
	}
	if total > 1<<12 {
		return // a round of a million turns is sorted in a second: too slow to fuzz
	}
	// Whatever is read compiles or is refused in one line, never panics.
	_, err = load.NewDataSource(load.DataConfig{Host: "h", Requests: reqs})
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q over two lines", err)
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{"id,name\n1,a\n", "a\n\"x\ny\"\n", "a,b\n1\n", "\ufeffa\n1\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadCSV(strings.NewReader(s), "f.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") && !strings.HasPrefix(err.Error(), "read f.csv") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line naming the file", err)
			}
			return
		}
		if len(d.Rows) == 0 || len(d.Rows) != len(d.Lines) {
			t.Fatalf("%d rows, %d lines", len(d.Rows), len(d.Lines))
		}
		for i, row := range d.Rows {
			if len(row) != len(d.Columns) || d.Lines[i] < 2 {
				t.Fatalf("row %d: %q under %q at line %d", i, row, d.Columns, d.Lines[i])
			}
		}
	})
}
