package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// The manifests under deploy/ are checked against the Kubernetes schemas
// by deploy/k8s/validate.sh; the tests here check what a schema cannot:
// that the commands they run are ones this gust accepts.

// deployDir is deploy/, from this package's directory.
const deployDir = "../../deploy"

// yamlList returns the items of the block list under the first "key:" line
// of a manifest, unquoted. The manifests write args as such lists.
func yamlList(t *testing.T, path, key string) []string {
	t.Helper()
	lines := readLines(t, path)
	for i, l := range lines {
		if strings.TrimSpace(l) != key+":" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		var items []string
		for _, item := range lines[i+1:] {
			text := strings.TrimSpace(item)
			if len(item)-len(strings.TrimLeft(item, " ")) <= indent || !strings.HasPrefix(text, "- ") {
				break
			}
			items = append(items, unquote(t, strings.TrimPrefix(text, "- ")))
		}
		return items
	}
	t.Fatalf("%s has no %s: list", path, key)
	return nil
}

// yamlMap returns the "KEY: value" lines under the first "key:" line,
// unquoted; the ConfigMap writes its data so.
func yamlMap(t *testing.T, path, key string) map[string]string {
	t.Helper()
	lines := readLines(t, path)
	m := map[string]string{}
	for i, l := range lines {
		if strings.TrimSpace(l) != key+":" {
			continue
		}
		for _, item := range lines[i+1:] {
			text := strings.TrimSpace(item)
			if strings.HasPrefix(text, "#") || text == "" {
				continue
			}
			if !strings.HasPrefix(item, " ") {
				break
			}
			k, v, _ := strings.Cut(text, ": ")
			m[k] = unquote(t, v)
		}
		return m
	}
	t.Fatalf("%s has no %s: map", path, key)
	return nil
}

// yamlInt returns the integer of the first "key: N" line.
func yamlInt(t *testing.T, path, key string) int {
	t.Helper()
	for _, l := range readLines(t, path) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+": "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: %s is %q, not a number", path, key, v)
			}
			return n
		}
	}
	t.Fatalf("%s has no %s", path, key)
	return 0
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func unquote(t *testing.T, s string) string {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatalf("bad quoted YAML value %s: %v", s, err)
	}
	return u
}

// expand replaces Kubernetes' $(VAR) references with env's values.
func expand(s string, env map[string]string) string {
	return regexp.MustCompile(`\$\(([A-Z_]+)\)`).ReplaceAllStringFunc(s, func(ref string) string {
		return env[ref[2:len(ref)-1]]
	})
}

// TestLoadJobRunsValidAgents expands the Job's args for every completion
// index with the ConfigMap's values, as the kubelet does, and checks that
// gust load accepts them: its flags, the shard of the run, and the run
// itself up to connecting (the target is replaced by a closed port).
func TestLoadJobRunsValidAgents(t *testing.T) {
	job := filepath.Join(deployDir, "k8s/load/job.yaml")
	env := yamlMap(t, filepath.Join(deployDir, "k8s/load/configmap.yaml"), "data")
	shards, err := strconv.Atoi(env["SHARDS"])
	if err != nil {
		t.Fatalf("SHARDS is %q", env["SHARDS"])
	}
	if c, p := yamlInt(t, job, "completions"), yamlInt(t, job, "parallelism"); c != shards || p != shards {
		t.Errorf("the Job runs %d completions, %d at once, but SHARDS is %d", c, p, shards)
	}
	args := yamlList(t, job, "args")
	if len(args) == 0 || args[0] != "load" {
		t.Fatalf("job args = %q, want gust load", args)
	}
	for _, startAt := range []string{env["START_AT"], time.Now().UTC().Format(time.RFC3339)} {
		for i := 0; i < shards; i++ {
			env["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
			env["START_AT"] = startAt
			var expanded []string
			for _, a := range args[1:] {
				expanded = append(expanded, expand(a, env))
			}
			f := &loadFlags{}
			cmd := loadCommand(f)
			if err := cmd.ParseFlags(expanded); err != nil {
				t.Fatalf("shard %d: gust load %q: %v", i, expanded, err)
			}
			rest := cmd.Flags().Args()
			if len(rest) != 1 || !strings.HasPrefix(rest[0], "http://") {
				t.Fatalf("shard %d: gust load %q leaves %q, want one URL", i, expanded, rest)
			}
			cfg, err := f.config("http://127.0.0.1:1/")
			if err != nil {
				t.Fatalf("shard %d: %v", i, err)
			}
			if cfg.Shard != (result.Shard{Index: i, Count: shards}) || f.output != "json" {
				t.Errorf("shard %d runs as %v with -o %s, want %d/%d and json", i, cfg.Shard, f.output, i, shards)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			cfg.StartAt = time.Time{}
			_, err = load.Run(ctx, cfg)
			if err == nil || !strings.Contains(err.Error(), "cannot connect") {
				t.Errorf("shard %d: run = %v, want it valid up to connecting", i, err)
			}
		}
	}
}

// TestServerDeploymentRunsValidServe checks the Deployment's gust serve
// command line and that its container port is the one it listens on.
func TestServerDeploymentRunsValidServe(t *testing.T) {
	dep := filepath.Join(deployDir, "k8s/server/deployment.yaml")
	args := yamlList(t, dep, "args")
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("deployment args = %q, want gust serve", args)
	}
	cmd := newServeCmd()
	if err := cmd.ParseFlags(args[1:]); err != nil {
		t.Fatalf("gust serve %q: %v", args[1:], err)
	}
	fl := cmd.Flags()
	var cfg serveConfig
	cfg.Addr, _ = fl.GetString("addr")
	cfg.Engine, _ = fl.GetString("engine")
	cfg.Mode, _ = fl.GetString("mode")
	cfg.API, _ = fl.GetString("api")
	cfg.Workers, _ = fl.GetInt("workers")
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	if err := checkWorkers(cfg); err != nil && !strings.Contains(err.Error(), "needs Linux") {
		t.Fatal(err)
	}
	if _, port, _ := strings.Cut(cfg.Addr, ":"); port != strconv.Itoa(yamlInt(t, dep, "containerPort")) {
		t.Errorf("gust serve listens on %s, the container port is %d", cfg.Addr, yamlInt(t, dep, "containerPort"))
	}
}

// TestDockerfileCopiesWhatGustNeeds checks that the Dockerfile copies
// every directory of this module that cmd/gust is built from, and runs
// the binary it builds.
func TestDockerfileCopiesWhatGustNeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	lines := readLines(t, filepath.Join(deployDir, "Dockerfile"))
	copied := map[string]bool{}
	text := strings.Join(lines, "\n")
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "COPY" && !strings.HasPrefix(f[1], "--") {
			copied[strings.TrimSuffix(f[1], "/")] = true
		}
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/gust-http/gust/"
	for _, pkg := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(pkg, module); ok {
			top, _, _ := strings.Cut(rel, "/")
			if !copied[top] {
				t.Errorf("gust imports %s, but the Dockerfile does not copy %s/", pkg, top)
			}
		}
	}
	for _, want := range []string{"go build", "./cmd/gust", "CGO_ENABLED=0", "-o /out/gust", "COPY --from=build /out/gust /usr/local/bin/gust",
		`ENTRYPOINT ["/usr/local/bin/gust"]`, "USER 65532:65532"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
}

// TestRunLoadPassesThresholdsToMerge runs deploy/k8s/run-load.sh with a
// stand-in kubectl and kustomize (two agents' results as their pods'
// logs) and this gust for gust merge: its --threshold and --fail-status
// reach gust merge, which judges the merged run, and the script exits 99
// when a threshold failed.
func TestRunLoadPassesThresholdsToMerge(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("run-load.sh needs bash")
	}
	dir := t.TempDir()
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	// p99 1 ms and 100 ms; merged, 1.5% at 100 ms: p99 100 ms.
	agents := []string{
		agentJSON(t, dir, 0, start, map[int64]int64{1000: 1000}),
		agentJSON(t, dir, 1, start, map[int64]int64{1000: 970, 100_000: 30}),
	}
	script := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kubectl := script("kubectl", `case "$*" in
*"delete job"*) ;;
*"apply -o name"*) cat >/dev/null; echo job.batch/gust-load ;;
*"get job.batch/gust-load"*"completions"*) echo 2 ;;
*"get job.batch/gust-load"*) echo "Complete " ;;
*"get pods"*) echo pod/gust-load-0; echo pod/gust-load-1 ;;
*"logs pod/gust-load-0"*) cat `+agents[0]+` ;;
*"logs pod/gust-load-1"*) cat `+agents[1]+` ;;
*) echo "kubectl: unexpected $*" >&2; exit 1 ;;
esac
`)
	kustomize := script("kustomize", "printf 'kind: ConfigMap\\ndata:\\n  START_AT: \"\"\\n---\\nkind: Job\\n'\n")
	tests := []struct {
		name   string
		args   []string
		status int
		want   string
	}{
		{"the merged p99 over the limit", []string{"--threshold", "p99<60ms"}, 99, "p99<60ms  100ms          FAILED"},
		{"the merged p99 under the limit", []string{"--threshold", "p99<=101ms", "--threshold", "error_rate<=0%", "--fail-status", "5xx"}, 0, "error_rate<=0%  0%             ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(deployDir, "k8s/run-load.sh"), "-a", "1"}, tt.args...)...)
			cmd.Env = append(os.Environ(), "KUBECTL="+kubectl, "KUSTOMIZE="+kustomize, "GUST="+os.Args[0], runMainEnv+"=1")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				status = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.status {
				t.Fatalf("run-load.sh exits %d, want %d; stderr:\n%s\nstdout:\n%s", status, tt.status, stderr.String(), stdout.String())
			}
			if !strings.Contains(stdout.String(), tt.want) || !strings.Contains(stdout.String(), "across 2 agents") {
				t.Errorf("the merged report lacks %q:\n%s", tt.want, stdout.String())
			}
		})
	}
}
