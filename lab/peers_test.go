package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindPeers(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "peers"), 0o755)
	os.WriteFile(filepath.Join(root, "peers", "go.mod"), []byte("module github.com/gust-http/gust/peers\n"), 0o644)
	deep := filepath.Join(root, "a", "b")
	os.MkdirAll(deep, 0o755)
	for _, tc := range []struct {
		name, from, want string
	}{
		{"from the repository's root", root, filepath.Join(root, "peers")},
		{"from a folder below it", deep, filepath.Join(root, "peers")},
		{"from outside it", t.TempDir(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findPeers(tc.from)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "peers/ not found") {
					t.Errorf("found %q, err %v: want not found", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("found %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
