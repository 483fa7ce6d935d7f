package reqdata

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("\ufeffid, name\n1,ada\n\n2,\"grace, \"\"amazing\"\"\"\n3,\"multi\nline\"\n4,\n"), "u.csv")
	if err != nil {
		t.Fatal(err)
	}
	wantRows := [][]string{{"1", "ada"}, {"2", `grace, "amazing"`}, {"3", "multi\nline"}, {"4", ""}}
	if !reflect.DeepEqual(d.Columns, []string{"id", "name"}) || !reflect.DeepEqual(d.Rows, wantRows) ||
		!reflect.DeepEqual(d.Lines, []int{2, 4, 5, 7}) || d.Name != "u.csv" {
		t.Fatalf("got %+v", d)
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "u.csv: empty"},
		{"id\n", "u.csv: no rows"},
		{"id,\n1,2\n", "u.csv:1: column 2 has no name"},
		{"id,id\n1,2\n", `u.csv:1: column "id" named twice`},
		{"{{id}}\n1\n", "u.csv:1: column \"{{id}}\": names cannot hold"},
		{"a,b\n1,2\n3\n", "u.csv:3: wrong number of fields"},
		{"a\n1\n\"x\n", "u.csv:3: extraneous or missing \" in quoted-field"},
		{"a\nx\"y\n", "u.csv:2: bare \" in non-quoted-field"},
	} {
		_, err := ReadCSV(strings.NewReader(tc.in), "u.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", tc.in, err, tc.want)
		}
	}
}
