package lab

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// PeerNames are the peer servers among the built-ins (BuiltinServers), the
// commands of the peers module that BuildPeers builds, in report order.
var PeerNames = []string{"fasthttp", "nethttp", "nbio", "gorillaws", "coderws", "gobwasws", "quicgo"}

// PeersBinDir returns where the peer binaries are built: gust/bench-peers
// in the user's cache directory, or in the temporary directory without one.
func PeersBinDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "gust", "bench-peers")
}

// BuildPeers builds the peer servers into dir with the go command, from
// the peers module of the gust repository that holds the working
// directory, saying so on log.
func BuildPeers(dir string, log io.Writer) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	src, err := findPeers(wd)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("peers not built: the go command is not on PATH")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(log, "gust bench: building %s from %s into %s\n", strings.Join(PeerNames, ", "), src, dir)
	args := []string{"build", "-o", dir + "/"}
	for _, p := range PeerNames {
		args = append(args, "./"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = src
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("peers not built (go build in %s: %v): %s", src, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// findPeers looks for the peers module in dir and its parents.
func findPeers(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "peers", "go.mod")); err == nil && strings.Contains(string(b), "/peers") {
			return filepath.Join(d, "peers"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("peers not built: run gust bench inside the gust repository (peers/ not found)")
		}
	}
}
