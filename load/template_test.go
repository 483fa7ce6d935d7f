package load

import (
	"strconv"
	"strings"
	"testing"
)

func TestCompileTemplate(t *testing.T) {
	columns := []string{"id", "name", "q"}
	row := []string{"7", "ada", "x=1"}
	for _, tc := range []struct {
		in, want, err string
		static        bool
	}{
		{in: "/users", want: "/users", static: true},
		{in: "", want: "", static: true},
		{in: "/users/{{id}}", want: "/users/7"},
		{in: "/users/{{ id }}?{{q}}", want: "/users/7?x=1"},
		{in: "{{name}}{{name}}-{{id}}", want: "adaada-7"},
		{in: `{"a":{"b":1}}`, want: `{"a":{"b":1}}`, static: true},
		{in: "}}{{id}}}}", want: "}}7}}"},
		{in: "/{{nope}}", err: "placeholder {{nope}} names no column of the data (its columns: id, name, q)"},
		{in: "/{{id}", err: `"{{" without its closing "}}"`},
		{in: "/{{}}", err: "placeholder {{}} names no column"},
		{in: "/{{ {{id}}", err: "names no column"},
	} {
		tpl, err := CompileTemplate(tc.in, columns)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := string(tpl.Append(nil, row)); got != tc.want {
			t.Errorf("%q filled = %q, want %q", tc.in, got, tc.want)
		}
		if tpl.Static() != tc.static {
			t.Errorf("%q: static %v, want %v", tc.in, tpl.Static(), tc.static)
		}
	}
}

// TestTemplateWithoutData refuses every placeholder when there are no
// columns, saying which flag gives them.
func TestTemplateWithoutData(t *testing.T) {
	_, err := CompileTemplate("/a/{{id}}", nil)
	if err == nil || !strings.Contains(err.Error(), "--data-csv") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want one line naming --data-csv", err)
	}
}

// FuzzTemplate checks that a template either compiles or is refused, and
// that a compiled one fills every placeholder: filled with each column's
// own marker, it equals the text with each {{name}} replaced.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"/a/{{id}}?n={{ name }}", "{{", "}}{{", "{{id}}{{id}}", "{{ }}", "x{{a}}y{{b}}z"} {
		f.Add(s)
	}
	columns := []string{"id", "name", "a", "b"}
	row := []string{"<0>", "<1>", "<2>", "<3>"}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := CompileTemplate(s, columns)
		names, perr := Placeholders(s)
		if (err == nil) != (perr == nil) && perr != nil {
			t.Fatalf("%q: Placeholders refuses (%v) what CompileTemplate accepts", s, perr)
		}
		if err != nil {
			return
		}
		want := s
		for _, n := range names {
			i := strings.Index(want, "{{")
			j := strings.Index(want[i:], "}}")
			want = want[:i] + "<" + strconv.Itoa(indexOf(columns, n)) + ">" + want[i+j+2:]
		}
		if got := string(tpl.Append(nil, row)); got != want {
			t.Fatalf("%q filled = %q, want %q", s, got, want)
		}
	})
}
