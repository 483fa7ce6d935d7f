package flow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlowBadFiles compiles every testdata/bad/*.yaml and compares its
// one-line error with the file's first line (a comment: "# want: ...").
func TestFlowBadFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want := strings.TrimPrefix(first, "# want: ")
			_, err = Compile(data, Options{File: filepath.Base(file), Columns: []string{"email"}, Rows: [][]string{{"a@b"}}})
			if err == nil {
				t.Fatalf("accepted; want %s", want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			if err.Error() != want {
				t.Fatalf("error\n  %s\nwant\n  %s", err, want)
			}
		})
	}
}

func FuzzCompile(f *testing.F) {
	f.Add([]byte(loginFlow))
	f.Add([]byte(`{"steps": [{"url": "/x", "capture": {"a": {"json": "a[0].b"}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Compile(data, Options{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		u := fl.NewUser(1, 1, 1)
		drive(t, u, fl.NewStats(), func(*Request) Response {
			return Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\nSet-Cookie: a=b\r\n\r\n"), Body: data}
		})
	})
}

func FuzzLookupJSON(f *testing.F) {
	f.Add([]byte(`{"a": {"b": [1, {"c": "x"}]}}`), "a.b[1].c")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		p, err := parsePath(path)
		if err != nil {
			return
		}
		if raw, ok := lookupJSON(body, p); ok && len(raw) == 0 {
			t.Fatal("found an empty value")
		}
	})
}
