package deploytest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prefix begins the name of everything the tests make; label marks the
// podman objects among them.
const (
	prefix = "gustdt"
	label  = "gust.deploy-test=1"
)

// require skips the test unless it was asked for, runs as root, and has
// the commands it needs.
func require(t *testing.T, commands ...string) {
	t.Helper()
	if os.Getenv("GUST_DEPLOY_TEST") != "1" {
		t.Skip("makes images, containers and network namespaces: run deploy/test/run.sh as root (it sets GUST_DEPLOY_TEST=1; .ci/run runs it)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and rootful podman: run deploy/test/run.sh as root")
	}
	for _, c := range commands {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("needs %s, missing here: apt-get install podman runc iproute2 (deploy/test/run.sh --install does)", c)
		}
	}
}

// repoRoot is the repository's root, from this package's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// command is a command to run, with podman's settings in its environment.
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = os.Environ()
	if os.Getenv("CONTAINERS_CONF") == "" {
		conf, _ := filepath.Abs("containers.conf")
		cmd.Env = append(cmd.Env, "CONTAINERS_CONF="+conf)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs name with args, failing the test with its output if it fails
// or takes longer than limit, and returns its standard output, trimmed.
func run(t *testing.T, limit time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := command(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return strings.TrimSpace(stdout.String())
}

// cleanup runs name with args when the test ends, logging a failure
// rather than failing: what it removes may never have been made.
func cleanup(t *testing.T, name string, args ...string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if out, err := command(ctx, name, args...).CombinedOutput(); err != nil {
			t.Logf("cleanup: %s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
	})
}

// buildGust builds this repository's gust for the host, into a directory
// of the test's, and returns its path.
func buildGust(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gust")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/gust")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gust: %v\n%s", err, out)
	}
	return bin
}

// startAt is an RFC 3339 time lead from now, to the millisecond, for
// gust load --start-at.
func startAt(lead time.Duration) string {
	return time.Now().Add(lead).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
