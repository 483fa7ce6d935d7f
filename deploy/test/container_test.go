package deploytest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The images the test makes: the two stand-ins for the Dockerfile's base
// images (see standins.sh) and the image itself.
const (
	builderImage = "localhost/" + prefix + "-builder:test"
	baseImage    = "localhost/" + prefix + "-base:test"
	gustImage    = "localhost/" + prefix + ":test"
)

// The podman network the test makes, and the server's address on it.
const (
	podNetwork = prefix + "-net"
	podSubnet  = "10.213.17.0/24"
	podServer  = "10.213.17.10"
)

// maxImageBytes is the most the image may weigh: 17.3 MB with gust load's
// gRPC calls, which compile .proto files in process (protocompile and
// protobuf add about 2.5 MB to the binary), and its YAML flow files.
const maxImageBytes = 20_000_000

// podman runs podman with args, failing the test if it fails.
func podman(t *testing.T, limit time.Duration, args ...string) string {
	t.Helper()
	return run(t, limit, "podman", args...)
}

// TestContainers builds deploy/Dockerfile with podman, checks the image,
// runs gust serve as the Deployment runs it, and the load agents as the
// Indexed Job runs them, merging their output.
func TestContainers(t *testing.T) {
	require(t, "podman", "runc")
	for _, what := range [][]string{{"ps", "-a"}, {"network", "ls"}, {"images"}} {
		if out := podman(t, time.Minute, append(what, "-q", "--filter", "label="+label)...); out != "" {
			t.Fatalf("podman %s: objects labelled %s are left from an earlier run:\n%s\nremove them: deploy/test/run.sh cleans up",
				what[0], label, out)
		}
	}
	gust := buildGust(t)
	root := repoRoot(t)

	began := time.Now()
	cleanup(t, "podman", "rmi", "--force", gustImage, baseImage, builderImage)
	run(t, 5*time.Minute, "./standins.sh", builderImage, baseImage)
	podman(t, 15*time.Minute, "build", "--pull=never", "--layers=false", "--label", label,
		"--build-arg", "GO_IMAGE="+builderImage, "--build-arg", "BASE_IMAGE="+baseImage,
		"-f", root+"/deploy/Dockerfile", "-t", gustImage, root)
	t.Logf("stand-ins and deploy/Dockerfile built in %s", time.Since(began).Round(time.Second))

	if !t.Run("the image is small and runs gust as 65532 without capabilities", testImage) {
		return
	}
	podman(t, time.Minute, "network", "create", "--label", label, "--subnet", podSubnet, podNetwork)
	cleanup(t, "podman", "network", "rm", "--force", podNetwork)
	// The server outlives its subtest: the agents load it.
	server := prefix + "-server"
	cleanup(t, "podman", "rm", "--force", "--time", "5", server)
	if !t.Run("gust serve runs with the Deployment's settings and is ready", func(t *testing.T) { testServer(t, server) }) {
		return
	}
	t.Run("agents run as the Indexed Job runs them and merge exactly", func(t *testing.T) { testJob(t, gust) })
}

// testImage checks the image's size and user, and what its process runs
// as when started with no option at all.
func testImage(t *testing.T) {
	size, err := strconv.ParseInt(podman(t, time.Minute, "image", "inspect", "--format", "{{.Size}}", gustImage), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes", gustImage, size)
	if size >= maxImageBytes {
		t.Errorf("the image weighs %d bytes, want under %d", size, maxImageBytes)
	}
	if user := podman(t, time.Minute, "image", "inspect", "--format", "{{.Config.User}}", gustImage); user != "65532:65532" {
		t.Errorf("the image's user is %q, want 65532:65532", user)
	}
	// With no option: the image's own user, podman's default capabilities
	// (which a non-root process does not get), no network.
	name := prefix + "-plain"
	cleanup(t, "podman", "rm", "--force", "--time", "2", name)
	podman(t, time.Minute, "run", "--detach", "--name", name, "--label", label, "--network", "none", gustImage)
	pid := waitRunning(t, name)
	status := procStatus(t, pid)
	for _, k := range []string{"Uid", "Gid"} {
		if status[k] != "65532\t65532\t65532\t65532" {
			t.Errorf("gust in the image runs with %s %q, want 65532 throughout", k, status[k])
		}
	}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if status[k] != "0000000000000000" {
			t.Errorf("gust in the image runs with %s %s, want none", k, status[k])
		}
	}
}

// waitRunning waits until container name runs and returns its first
// process's pid on the host.
func waitRunning(t *testing.T, name string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		state := podman(t, time.Minute, "inspect", "--format", "{{.State.Status}} {{.State.Pid}}", name)
		status, pid, _ := strings.Cut(state, " ")
		if n, _ := strconv.Atoi(pid); status == "running" && n > 0 {
			return n
		}
		if status == "exited" || time.Now().After(deadline) {
			logs, _ := command(context.Background(), "podman", "logs", name).CombinedOutput()
			t.Fatalf("container %s is %s, not running; its output:\n%s", name, status, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// procStatus is /proc/PID/status as a map of its fields.
func procStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for l := range strings.Lines(string(data)) {
		k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// testServer runs gust serve with the Deployment's args, environment and
// security settings, checks what its processes run as, and probes /ready
// as the readiness probe does, in a container called name.
func testServer(t *testing.T, name string) {
	dep := readManifest(t, "server/deployment.yaml")
	args := dep.list(t, "args")
	podman(t, time.Minute, append(append([]string{"run", "--detach", "--name", name, "--label", label,
		"--network", podNetwork, "--ip", podServer,
		"--env", "GOMAXPROCS=" + dep.envValue(t, "GOMAXPROCS")}, dep.podmanSecurity(t)...), append([]string{gustImage}, args...)...)...)
	pid := waitRunning(t, name)

	port := dep.value(t, "", "containerPort")
	url := fmt.Sprintf("http://%s:%s%s", podServer, port, dep.value(t, "httpGet", "path"))
	deadline := time.Now().Add(20 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("GET %s: %s", url, resp.Status)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v (status %v)", url, err, resp)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The parent and each worker: uid 65532, no capability at all (the
	// bounding set empty too), no_new_privs.
	workers := childrenOf(t, pid)
	if want := workersFlag(t, args); len(workers) != want {
		t.Errorf("gust serve has %d worker processes (%v), want %d", len(workers), workers, want)
	}
	for _, p := range append([]string{strconv.Itoa(pid)}, workers...) {
		n, _ := strconv.Atoi(p)
		st := procStatus(t, n)
		for k, want := range map[string]string{"Uid": "65532\t65532\t65532\t65532", "CapPrm": "0000000000000000",
			"CapEff": "0000000000000000", "CapBnd": "0000000000000000", "NoNewPrivs": "1"} {
			if st[k] != want {
				t.Errorf("gust serve process %s (%s): %s %q, want %q", p, st["Name"], k, st[k], want)
			}
		}
	}
	mounts, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		t.Fatal(err)
	}
	if !rootReadOnly(string(mounts)) {
		t.Errorf("the container's root file system is not mounted read-only:\n%s", mounts)
	}
	if mem := podman(t, time.Minute, "inspect", "--format", "{{.HostConfig.Memory}}", name); mem != strconv.Itoa(512<<20) {
		t.Errorf("the container's memory limit is %s bytes, want 512Mi as the Deployment's", mem)
	}
	logs, _ := command(context.Background(), "podman", "logs", name).CombinedOutput()
	t.Logf("gust serve (pid %d, workers %v) printed:\n%s", pid, workers, logs)
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(t *testing.T, pid int) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if n, err := strconv.Atoi(d.Name()); err == nil {
			if data, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil {
				// pid (comm) state ppid ...: comm may hold spaces, not ")".
				f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
				if len(f) > 1 && f[1] == strconv.Itoa(pid) {
					out = append(out, strconv.Itoa(n))
				}
			}
		}
	}
	return out
}

// workersFlag is the N of --workers=N among args.
func workersFlag(t *testing.T, args []string) int {
	t.Helper()
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--workers="); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("the Deployment's args %v have no --workers=N", args)
	return 0
}

// rootReadOnly reports whether mountinfo mounts / with the option ro.
func rootReadOnly(mountinfo string) bool {
	for l := range strings.Lines(mountinfo) {
		f := strings.Fields(l)
		if len(f) > 5 && f[4] == "/" {
			return strings.Contains(","+f[5]+",", ",ro,")
		}
	}
	return false
}

// The load of the Job's run here: far less than the ConfigMap's, for a
// 2-core machine, but the same shape.
const (
	jobRate        = "2000"
	jobConnections = "8"
	jobDuration    = "2s"
	// Starting four containers at once takes seconds on a busy machine.
	jobLead = 15 * time.Second
)

// testJob runs one agent container per completion of the Indexed Job, each
// given JOB_COMPLETION_INDEX and the ConfigMap's values as environment
// variables and the Job's args expanded from them as Kubernetes does, with
// the Job's security settings; collects their standard output as
// `kubectl logs` would, and merges it.
func testJob(t *testing.T, gust string) {
	job := readManifest(t, "load/job.yaml")
	cm := readManifest(t, "load/configmap.yaml")
	if mode := job.value(t, "", "completionMode"); mode != "Indexed" {
		t.Fatalf("the Job's completionMode is %s, want Indexed", mode)
	}
	if !strings.Contains(strings.Join(job.lines, "\n"), "fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']") {
		t.Fatal("the Job does not set JOB_COMPLETION_INDEX from the completion-index annotation")
	}
	completions, err := strconv.Atoi(job.value(t, "", "completions"))
	if err != nil {
		t.Fatal(err)
	}
	data := cm.mapping(t, "data")
	if data["SHARDS"] != strconv.Itoa(completions) {
		t.Fatalf("the ConfigMap's SHARDS is %s, the Job's completions %d", data["SHARDS"], completions)
	}
	// The ConfigMap as run-load.sh would apply it, scaled down; URL and
	// SHARDS as written.
	data["RATE"], data["CONNECTIONS"], data["DURATION"] = jobRate, jobConnections, jobDuration
	data["START_AT"] = startAt(jobLead)
	args := job.list(t, "args")
	security := job.podmanSecurity(t)

	began := time.Now()
	runs := runAgents(completions, jobLead+2*time.Minute, func(ctx context.Context, i int) *exec.Cmd {
		env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)}
		for k, v := range data {
			env[k] = v
		}
		// The Service's name, gust-server, is the server's address: in
		// /etc/hosts, as aardvark-dns (podman's DNS) here answered no
		// network alias.
		run := []string{"run", "--rm", "--name", fmt.Sprintf("%s-agent-%d", prefix, i), "--label", label,
			"--network", podNetwork, "--add-host", serviceHost(t, data["URL"]) + ":" + podServer}
		for k, v := range env {
			run = append(run, "--env", k+"="+v)
		}
		run = append(append(run, security...), gustImage)
		for _, a := range args {
			run = append(run, expand(a, env))
		}
		return command(ctx, "podman", run...)
	})
	took := time.Since(began)
	logRuns(t, runs)
	for _, r := range runs {
		if r.err != nil {
			t.Fatalf("agent %d failed: %v: %s", r.index, r.err, r.stderr)
		}
	}
	m := mergeExactly(t, gust, runs)
	t.Logf("%d agents ran in %s (%s of it waiting for --start-at); gust merge printed:\n%s",
		completions, took.Round(time.Millisecond), jobLead, m.text)
	for i := range completions {
		a, ok := m.agents[i]
		switch {
		case !ok:
			t.Errorf("shard %d/%d (JOB_COMPLETION_INDEX=%d) is missing from the merge", i, completions, i)
		case a.Late || a.Short || a.Interrupted || a.Requests == 0:
			t.Errorf("agent %d/%d flagged or idle: %+v", i, completions, a)
		}
	}
	if rate := strconv.FormatFloat(m.result.Rate, 'f', -1, 64); rate != jobRate || strconv.Itoa(m.result.Connections) != jobConnections {
		t.Errorf("merged run at %s/s on %d connections, want the ConfigMap's %s/s on %s", rate, m.result.Connections, jobRate, jobConnections)
	}
}

// serviceHost is the host name of url, http://NAME:PORT/.
func serviceHost(t *testing.T, url string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(url, "http://")
	host, _, _ := strings.Cut(rest, ":")
	if !ok || host == "" {
		t.Fatalf("the ConfigMap's URL %q is not http://NAME:PORT/", url)
	}
	return host
}
