package lab

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeFileServer serves the files under root when mode is files, and
// exits with status 4 for any other mode.
func fakeFileServer(addr, mode, root string) {
	if mode != ModeFiles {
		os.Stderr.WriteString("fake-file-server: mode " + mode)
		os.Exit(4)
	}
	err := http.ListenAndServe(addr, http.FileServer(http.Dir(root)))
	os.Stderr.WriteString(err.Error())
	os.Exit(1)
}

// fileLoader fetches the URL for the scenario's duration and counts the
// answers that are the whole file.
type fileLoader struct{ urls chan string }

func (fileLoader) Name() string { return "file-test" }

func (l fileLoader) Load(ctx context.Context, url string, sc Scenario) (*LoadResult, error) {
	l.urls <- url
	start := time.Now()
	lr := &LoadResult{Start: start, P50: -1, P99: -1, P999: -1}
	for time.Since(start) < time.Duration(sc.Duration) {
		resp, err := http.Get(url)
		if err != nil {
			return nil, err
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && n == sc.File.Size {
			lr.Requests++
		} else {
			lr.Errors++
		}
	}
	lr.Duration = time.Since(start)
	lr.RPS = float64(lr.Requests) / lr.Duration.Seconds()
	return lr, nil
}

// TestRunnerServesFileCells: a file cell writes its file, gives the
// server its directory as {root} and the loader the file's URL; a server
// that does not serve files (nbio's flags) is a cell error, as is a
// running target.
func TestRunnerServesFileCells(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	loader := fileLoader{urls: make(chan string, 4)}
	sc := Scenario{Name: "file-1k", Connections: 1, File: &File{Size: 1024}, Duration: Duration(300 * time.Millisecond)}
	r := &Runner{
		Servers: []Server{
			{Name: "fake-files", Command: ShellQuote(exe) + " fake-file-server {addr} {mode} {root}"},
			{Name: "no-files", Command: "true", Modes: peerModeFlags},
			{Name: "target", URL: "http://127.0.0.1:1/"},
		},
		Scenarios:    []Scenario{sc},
		Loader:       loader,
		StartTimeout: 5 * time.Second,
	}
	cells := r.Run(context.Background())
	if len(cells) != 3 {
		t.Fatalf("%d cells, want 3", len(cells))
	}
	if c := cells[0]; c.Error != "" || c.Requests == 0 || c.Errors != 0 || c.Mode != ModeFiles {
		t.Errorf("file cell: %+v", c)
	}
	if u := <-loader.urls; !strings.HasSuffix(u, "/file-1024.bin") {
		t.Errorf("the loader got %q", u)
	}
	if !strings.Contains(cells[1].Error, "does not serve files") {
		t.Errorf("a server without files: %q", cells[1].Error)
	}
	if !strings.Contains(cells[2].Error, "needs a started server") {
		t.Errorf("a target: %q", cells[2].Error)
	}
}

// TestFileScenarios: the files matrix parses, and what file scenarios
// refuse.
func TestFileScenarios(t *testing.T) {
	data, err := os.ReadFile("scenarios/files.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenarios(data)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, s := range sc {
		sizes = append(sizes, s.File.Size)
		if s.Mode() != ModeFiles || s.Connections != 200 || !s.KeepAliveOn() {
			t.Errorf("%s: mode %s, %d connections", s.Name, s.Mode(), s.Connections)
		}
	}
	if len(sizes) != 3 || sizes[0] != 1024 || sizes[1] != 100<<10 || sizes[2] != 10<<20 {
		t.Errorf("sizes %v", sizes)
	}
	if g := sc[2].Group(); g != "keep-alive, file of 10 MiB" {
		t.Errorf("group %q", g)
	}
	for _, bad := range []string{
		`{"scenarios": [{"name": "a", "connections": 1, "duration": "1s", "file": {"size": 0}}]}`,
		`{"scenarios": [{"name": "a", "connections": 1, "duration": "1s", "file": {"size": 10}, "tls": {}}]}`,
		`{"scenarios": [{"name": "a", "connections": 1, "duration": "1s", "file": {"size": 10}, "delay": "1s"}]}`,
	} {
		if _, err := ParseScenarios([]byte(bad)); err == nil || !strings.Contains(err.Error(), "file") {
			t.Errorf("%s: %v, want an error about the file", bad, err)
		}
	}
	// The built-ins' flags for a file cell.
	for _, s := range BuiltinServers("/peers", "/bin/gust") {
		line, err := s.commandLine("A", "D", 0, ModeFiles, "/tmp/r")
		switch s.Name {
		case "nbio":
			if err == nil {
				t.Errorf("nbio serves files: %s", line)
			}
		case "nginx":
			if s.Missing == "" && (err != nil || !strings.Contains(line, "files A /tmp/r")) {
				t.Errorf("nginx: %q %v", line, err)
			}
		case "fasthttp", "nethttp":
			if err != nil || !strings.HasSuffix(line, " -root /tmp/r") {
				t.Errorf("%s: %q %v", s.Name, line, err)
			}
		}
	}
	// gust serve gets --root, and its probe asks its --help for the flag,
	// not the placeholder.
	if gustModeFlags[ModeFiles] != "--root {root}" || !placeholderField("{root}") || placeholderField("--root") {
		t.Errorf("gust's file flags %q", gustModeFlags[ModeFiles])
	}
}

// TestNginxServesFiles starts the built-in nginx server's command for a
// file cell and fetches the file, whole and by range. It skips where
// nginx is not installed.
func TestNginxServesFiles(t *testing.T) {
	srv := nginxServer()
	if srv.Missing != "" {
		t.Skip(srv.Missing)
	}
	f := &File{Size: 100 << 10}
	root, err := writeFileRoot(f)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	want, _ := os.ReadFile(filepath.Join(root, f.fileName()))
	r := &Runner{StartTimeout: 10 * time.Second}
	p, err := r.start(context.Background(), srv, Scenario{Name: "f", Connections: 1, File: f}, root)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	url := "http://" + p.addr + "/" + f.fileName()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, want) || !strings.HasPrefix(resp.Header.Get("Server"), "nginx") {
		t.Fatalf("%d, %d bytes, Server %q", resp.StatusCode, len(body), resp.Header.Get("Server"))
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Range", "bytes=10-19")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || !bytes.Equal(body, want[10:20]) {
		t.Errorf("range: %d %q", resp.StatusCode, body)
	}
}
