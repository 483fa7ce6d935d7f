package deploytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDockerfileCopiesWhatTheBinaryBuildsFrom checks, without podman,
// that deploy/Dockerfile copies every folder of the repository that a
// package of cmd/gust's build comes from, and no folder that is gone: a
// package moved in the tree otherwise breaks the image build, which only
// the root-only container test would see.
func TestDockerfileCopiesWhatTheBinaryBuildsFrom(t *testing.T) {
	root := repoRoot(t)
	df, err := os.ReadFile(filepath.Join(root, "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	copied := map[string]bool{}
	for _, line := range strings.Split(string(df), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "COPY" && strings.HasSuffix(f[1], "/") {
			dir := strings.TrimSuffix(f[1], "/")
			copied[dir] = true
			if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
				t.Errorf("deploy/Dockerfile copies %s/, which does not exist", dir)
			}
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./cmd/gust")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // a module from the cache
		}
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if !copied[top] {
			t.Errorf("cmd/gust builds from %s, whose folder %s/ deploy/Dockerfile does not copy", rel, top)
		}
	}
}
