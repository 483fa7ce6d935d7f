package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeRoot: gust serve --root answers a file whole and by range on
// every engine and API.
func TestServeRoot(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789"), 10000)
	os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o644)
	for _, tc := range []struct{ engine, api, suffix string }{
		{"gust", "native", " (engine gust, auto, native)"},
		{"gust", "nethttp", " (engine gust, auto, nethttp)"},
		{"nethttp", "native", " (engine nethttp)"},
	} {
		t.Run(tc.engine+"/"+tc.api, func(t *testing.T) {
			cfg := serveConfig{Addr: "127.0.0.1:0", Engine: tc.engine, Mode: "auto", API: tc.api, Root: dir}
			lines, cancel, done := startServe(t, cfg)
			base := urlFromLine(t, <-lines, "gust serve: listening on ", tc.suffix)
			req, _ := http.NewRequest("GET", base+"/f.bin", nil)
			req.Header.Set("Range", "bytes=10-19")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 206 || string(body) != "0123456789" {
				t.Errorf("range: %d %q", resp.StatusCode, body)
			}
			resp, err = http.Get(base + "/f.bin")
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !bytes.Equal(body, data) {
				t.Errorf("whole: %d, %d bytes", resp.StatusCode, len(body))
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("runServe after cancel = %v", err)
				}
			case <-time.After(shutdownGrace + 2*time.Second):
				t.Fatal("runServe did not return")
			}
		})
	}
}

// TestServeRootRefusesBadFlags: a root that is no directory, and the hello
// answer's flags beside --root.
func TestServeRootRefusesBadFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{
		{"--root", file},
		{"--root", filepath.Join(file, "nothing")},
		{"--root", t.TempDir(), "--body-size", "10"},
	} {
		cmd := newServeCmd()
		cmd.SetArgs(append(args, "--addr", "127.0.0.1:0"))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), "--root") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want a one-line error about --root", args, err)
		}
	}
}

// TestServeRootUsesSendfile runs gust serve --root under strace and looks
// for sendfile(2) answering a plain HTTP/1.1 GET. It skips without strace
// (or where ptrace is not allowed).
func TestServeRootUsesSendfile(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	if testing.Short() {
		t.Skip("builds gust")
	}
	bin := filepath.Join(t.TempDir(), "gust")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.bin"), bytes.Repeat([]byte("x"), 1<<20), 0o644)
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command("strace", "-f", "-e", "trace=sendfile", "-o", trace, bin, "serve", "--root", dir, "--addr", "127.0.0.1:0")
	// A group of its own: killing strace alone leaves the traced gust
	// serve running, detached; the group takes both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	line := make([]byte, 200)
	n, _ := stderr.Read(line)
	first := string(line[:n])
	i := strings.Index(first, "http://")
	if i < 0 {
		t.Skipf("gust serve under strace said %q (ptrace not allowed here?)", first)
	}
	base := strings.Fields(first[i:])[0]
	resp, err := http.Get(base + "/f.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if got != 1<<20 {
		t.Fatalf("%d bytes", got)
	}
	out, _ := os.ReadFile(trace)
	if !strings.Contains(string(out), "sendfile(") {
		t.Errorf("no sendfile in the trace:\n%s", out)
	}
}
