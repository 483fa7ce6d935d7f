package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gust-http/gust/lab"
)

func TestBenchRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"scenarios": [{"name": "x", "conns": 5}]}`), 0o644)
	cases := []struct {
		name string
		cfg  benchConfig
		want string
	}{
		{"a bad config names the file and the field", benchConfig{Config: bad, Repeat: 1}, `bad.json: json: unknown field "conns"`},
		{"a missing config says so", benchConfig{Config: bad + ".nope", Repeat: 1}, "no such file"},
		{"an unknown loader is refused", benchConfig{Loader: "siege", Repeat: 1}, `unknown loader "siege"`},
		{"an unknown server is listed with the known ones", benchConfig{Only: []string{"apache"}, Repeat: 1}, `no server "apache" (known: coderws, fasthttp, gobwasws, gorillaws, gust-adapter`},
		{"a target needs a URL", benchConfig{Targets: []string{"nginx="}, Repeat: 1}, "want NAME=VALUE"},
		{"repeat must be positive", benchConfig{Repeat: 0}, "--repeat must be at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runBench(context.Background(), tc.cfg, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestBenchAgainstATargetWritesTheReports(t *testing.T) {
	all, err := lab.AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { lab.PinProcess(all) }) // gust bench pins the process to the client CPUs
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("Hello, Go!")) }))
	defer srv.Close()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "m.json")
	os.WriteFile(cfgFile, []byte(`{"scenarios": [{"name": "ka-20", "connections": 20, "duration": "300ms"}]}`), 0o644)
	var out, errb bytes.Buffer
	err = runBench(context.Background(), benchConfig{
		Config: cfgFile, Out: filepath.Join(dir, "out"), Repeat: 1, Loader: "gust",
		Targets: []string{"httptest=" + srv.URL + "/"}, Only: []string{"httptest"},
	}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
	}
	for _, f := range []string{"results.json", "results.csv", "report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(out.String(), "httptest       ka-20") || !strings.Contains(out.String(), "1 cells (0 failed)") {
		t.Errorf("terminal table:\n%s", out.String())
	}
}
