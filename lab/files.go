package lab

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// File scenarios: every request fetches one file of a given size, which
// the runner writes into a fresh directory for each cell and each server
// serves from there ({root} in a --server command; --root or -root for the
// built-ins, nginx with sendfile on). The file's bytes are not
// compressible text, so nothing is gained by a server that compresses.

// ModeFiles is the mode of a file scenario: plain HTTP/1.1, a server
// serving the files under {root}.
const ModeFiles = "files"

// File makes a scenario fetch a file of Size bytes instead of the hello
// answer.
type File struct {
	Size int64 `json:"size"`
}

// maxFileSize bounds a scenario's file: the runner writes it per cell.
const maxFileSize = 1 << 30

func (f *File) validate(name string) error {
	if f.Size < 1 || f.Size > maxFileSize {
		return fmt.Errorf("scenario %q: file.size must be between 1 and %d bytes, got %d", name, maxFileSize, f.Size)
	}
	return nil
}

// fileName is the name of a scenario's file under its root.
func (f *File) fileName() string { return fmt.Sprintf("file-%d.bin", f.Size) }

// fileGroup is what Group says of a file scenario.
func (f *File) fileGroup() string { return "file of " + byteSize(f.Size) }

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// writeFileRoot makes a directory holding the scenario's file, and an
// index.html so that a server's readiness check at / finds something.
func writeFileRoot(f *File) (string, error) {
	dir, err := os.MkdirTemp("", "gust-bench-files-")
	if err != nil {
		return "", fmt.Errorf("file scenario: %w", err)
	}
	data := bytes.Repeat([]byte("gust bench file scenario "), int(f.Size/25+1))[:f.Size]
	for i := range data {
		// A cheap scramble, so that a server compressing on its own gains little.
		data[i] ^= byte(i * 2654435761 >> 13)
	}
	if err := os.WriteFile(filepath.Join(dir, f.fileName()), data, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("file scenario: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("gust bench\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("file scenario: %w", err)
	}
	return dir, nil
}

// nginxServer is nginx as a built-in server, started by
// scripts/nginx-h2.sh (found in the gust repository that holds the
// working directory): one process, pinned like the others, in every mode,
// files with sendfile on. Where the script or nginx is missing, its cells
// say so.
func nginxServer() Server {
	s := Server{Name: "nginx", Unserved: []string{ModeWS, ModeH3}}
	wd, err := os.Getwd()
	if err != nil {
		s.Missing = "nginx: " + err.Error()
		return s
	}
	script, err := findRepoFile(wd, filepath.Join("scripts", "nginx-h2.sh"))
	if err != nil {
		s.Missing = "nginx: " + err.Error()
		return s
	}
	if _, err := exec.LookPath("nginx"); err != nil {
		if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
			s.Missing = "nginx is not installed (apt-get install nginx-light)"
		}
	}
	s.Command = ShellQuote(script) + " {mode} {addr} {root}"
	return s
}

// findRepoFile looks for rel in dir and its parents.
func findRepoFile(dir, rel string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, rel)); err == nil {
			return filepath.Join(d, rel), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New(rel + " not found: run gust bench inside the gust repository")
		}
	}
}

// placeholderField reports whether a mode flag's field is a placeholder
// ({root}) rather than a flag a binary must know.
func placeholderField(f string) bool { return strings.HasPrefix(f, "{") }
