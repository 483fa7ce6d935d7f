package reqdata

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gust-http/gust/load"
)

func readFake(path string) ([]byte, error) {
	if path == "dir/body.json" {
		return []byte(`{"id":{{id}}}`), nil
	}
	return nil, errors.New("no such file")
}

func parse(s string) ([]load.RequestTemplate, error) {
	return ParseTargets(strings.NewReader(s), Options{Name: "dir/t.txt", Origin: "http://h:8080", ReadFile: readFake})
}

func TestParseTargetsLines(t *testing.T) {
	got, err := parse("# the API\n\nGET /users/{{id}} weight=2\nAccept: application/json\r\n" +
		"POST http://h:8080/users @body.json\nContent-Type: application/json\nX-Empty:\n" +
		"  PUT /inline {\"a\": 1}  \nDELETE /x?y=1\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []load.RequestTemplate{
		{Method: "GET", Target: "/users/{{id}}", Weight: 2, Header: [][2]string{{"Accept", "application/json"}}, Name: "GET /users/{{id}}", Where: "dir/t.txt:3"},
		{Method: "POST", Target: "/users", Body: `{"id":{{id}}}`, Header: [][2]string{{"Content-Type", "application/json"}, {"X-Empty", ""}}, Name: "POST /users", Where: "dir/t.txt:5"},
		{Method: "PUT", Target: "/inline", Body: `{"a": 1}  `, Name: "PUT /inline", Where: "dir/t.txt:8"},
		{Method: "DELETE", Target: "/x?y=1", Name: "DELETE /x?y=1", Where: "dir/t.txt:9"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseTargetsJSON(t *testing.T) {
	got, err := parse(`{"method":"POST","url":"/u/{{id}}","headers":{"B":"1","A":["x","y"]},"body":"{\"n\":\"{{name}}\"}","weight":3}
# a comment
{"path":"/p?q=1","body_base64":"aGk=","name":"the p"}
{"url":"http://H:8080"}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []load.RequestTemplate{
		{Method: "POST", Target: "/u/{{id}}", Header: [][2]string{{"B", "1"}, {"A", "x"}, {"A", "y"}}, Body: `{"n":"{{name}}"}`, Weight: 3, Name: "POST /u/{{id}}", Where: "dir/t.txt:1"},
		{Method: "GET", Target: "/p?q=1", Body: "hi", Name: "the p", Where: "dir/t.txt:3"},
		{Method: "GET", Target: "/", Name: "GET /", Where: "dir/t.txt:4"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseTargetsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "dir/t.txt: no requests"},
		{"# only\n", "dir/t.txt: no requests"},
		{"Accept: x\nGET /\n", "dir/t.txt:1: a header field before any request"},
		{"GET\n", `dir/t.txt:1: "GET" is not METHOD URL`},
		{"GET / weight=0\n", "dir/t.txt:1: bad weight=0"},
		{"GET / weight=x\n", "dir/t.txt:1: bad weight=x"},
		{"GET http://other/x\n", "dir/t.txt:1: http://other/x is not on the run's server http://h:8080"},
		{"GET ftp://h/x\n", "dir/t.txt:1: bad URL"},
		{"GET / @missing\n", "dir/t.txt:1: body @dir/missing: no such file"},
		{"GET /\n\nPOST / @\n", "dir/t.txt:3: @: bodies from files"},
		{`{"url":"/"`, "dir/t.txt:1: bad JSON"},
		{`{"url":"/","x":1}`, `dir/t.txt:1: bad JSON: json: unknown field "x"`},
		{`{"path":"p"}`, `dir/t.txt:1: "path" "p" must start with /`},
		{`{"method":"GET"}`, `dir/t.txt:1: no "url" or "path"`},
		{`{"url":"/","path":"/"}`, `give "url" or "path", not both`},
		{`{"url":"/","body":"a","body_base64":"YQ=="}`, `give "body" or "body_base64"`},
		{`{"url":"/","body_base64":"!"}`, `"body_base64" is not standard base64`},
		{`{"url":"/","weight":0}`, `"weight" 0`},
		{`{"url":"/","headers":{"a":1}}`, `"headers" must be an object`},
		{`{"url":"/","headers":[]}`, `"headers" must be an object`},
		{`{"url":"/"} {}`, "text after the object"},
		{"{\"url\":\"/\"}\nGET /\n", "dir/t.txt:2: bad JSON"},
	} {
		_, err := parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", tc.in, err, tc.want)
		}
	}
}

func TestParseTargetsFormatForced(t *testing.T) {
	_, err := ParseTargets(strings.NewReader("GET /\n"), Options{Name: "t", Format: JSON, Origin: "http://h"})
	if err == nil || !strings.Contains(err.Error(), "t:1: bad JSON") {
		t.Errorf("JSON forced on a lines file: %v", err)
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat accepts xml")
	}
}

func TestSplitURL(t *testing.T) {
	for _, tc := range []struct{ in, origin, target, err string }{
		{in: "http://h:8080", origin: "http://h:8080", target: "/"},
		{in: "https://h/a/{{id}}?q={{q}}#frag", origin: "https://h", target: "/a/{{id}}?q={{q}}"},
		{in: "http://h?x=1", origin: "http://h", target: "/?x=1"},
		{in: "http://{{host}}/", err: "the host must be"},
		{in: "ws://h/", err: "want http:// or https://"},
		{in: "h/x", err: "want http://"},
	} {
		o, tg, err := SplitURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || o != tc.origin || tg != tc.target {
			t.Errorf("%q: %q %q %v, want %q %q", tc.in, o, tg, err, tc.origin, tc.target)
		}
	}
	if !sameOrigin("http://H", "http://h:80") || sameOrigin("http://h", "https://h") {
		t.Error("sameOrigin: default ports or schemes wrong")
	}
}
