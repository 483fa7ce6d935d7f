package deploytest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hosts is the test's network: a bridge in a namespace of its own, and a
// server and four agents, each in its own namespace with one veth link to
// the bridge and an address of 10.213.16.0/24. No namespace has a route
// anywhere else.
type hosts struct {
	bridge string   // the bridge's namespace
	server string   // the server's namespace
	agents []string // the agents' namespaces
}

const (
	subnet     = "10.213.16"
	serverAddr = subnet + ".10:8080"
)

// makeHosts builds the network, removing it when the test ends.
func makeHosts(t *testing.T, agents int) hosts {
	t.Helper()
	out := run(t, 10*time.Second, "ip", "netns", "list")
	if strings.Contains(out, prefix+"-") {
		t.Fatalf("network namespaces %s-* are left from an earlier run (ip netns list):\n%s\nremove them: deploy/test/run.sh cleans up", prefix, out)
	}
	h := hosts{bridge: prefix + "-br", server: prefix + "-srv"}
	for i := range agents {
		h.agents = append(h.agents, fmt.Sprintf("%s-a%d", prefix, i))
	}
	ip := func(args ...string) { run(t, 10*time.Second, "ip", args...) }
	for _, ns := range append([]string{h.bridge, h.server}, h.agents...) {
		ip("netns", "add", ns)
		cleanup(t, "ip", "netns", "delete", ns)
		ip("-n", ns, "link", "set", "lo", "up")
	}
	ip("-n", h.bridge, "link", "add", "br0", "type", "bridge")
	ip("-n", h.bridge, "link", "set", "br0", "up")
	// The server is .10, agent i is .20+i.
	addrs := map[string]int{h.server: 10}
	for i, ns := range h.agents {
		addrs[ns] = 20 + i
	}
	for ns, host := range addrs {
		// The host's end is eth0 in its namespace; the bridge's end is
		// named after the host.
		ip("-n", h.bridge, "link", "add", h.port(ns), "type", "veth", "peer", "name", "eth0", "netns", ns)
		ip("-n", h.bridge, "link", "set", h.port(ns), "master", "br0", "up")
		ip("-n", ns, "addr", "add", fmt.Sprintf("%s.%d/24", subnet, host), "dev", "eth0")
		ip("-n", ns, "link", "set", "eth0", "up")
	}
	return h
}

// port is the bridge's end of the link to the host in namespace ns.
func (h hosts) port(ns string) string { return "v-" + strings.TrimPrefix(ns, prefix+"-") }

// startServer runs gust serve --workers 2 in the server's namespace until
// the test ends, and waits until an agent's host gets an answer from it.
func startServer(t *testing.T, gust string, h hosts) {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", h.server, gust, "serve", "--addr", serverAddr, "--workers", "2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		// SIGTERM drains the workers; the group, if they outlive it.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		t.Logf("gust serve in %s printed:\n%s", h.server, log.String())
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", h.agents[0], gust, "load", "-n", "1", "-c", "1",
			"--timeout", "1s", "--quiet", "http://"+serverAddr+"/ready").CombinedOutput()
		cancel()
		if err == nil && strings.Contains(string(out), "200: 1") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gust serve in %s does not answer /ready from %s: %v\n%s\nserver: %s", h.server, h.agents[0], err, out, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// nsLoad is the load of one namespace run: short, bounded, open model.
const (
	nsRate     = 4000
	nsConns    = 8
	nsDuration = 3 * time.Second
	nsLead     = 2 * time.Second // --start-at this far ahead
	nsLimit    = 30 * time.Second
)

// runNamespaceAgents runs gust load --shard I/N in each agent's namespace,
// all beginning at one --start-at, and returns what each printed.
func runNamespaceAgents(gust string, h hosts) []agentRun {
	at := startAt(nsLead)
	return runAgents(len(h.agents), nsLimit, func(ctx context.Context, i int) *exec.Cmd {
		return exec.CommandContext(ctx, "ip", "netns", "exec", h.agents[i], gust, "load",
			fmt.Sprintf("--shard=%d/%d", i, len(h.agents)), "--start-at="+at,
			fmt.Sprintf("--rate=%d", nsRate), fmt.Sprintf("--connections=%d", nsConns), "--duration="+nsDuration.String(),
			"--timeout=2s", "--output=json", "--quiet", "http://"+serverAddr+"/")
	})
}

// TestNamespaces runs a server and four agents on hosts of their own and
// merges the agents' results: once with every agent completing, once with
// an agent's link cut mid-run.
func TestNamespaces(t *testing.T) {
	require(t, "ip")
	gust := buildGust(t)
	h := makeHosts(t, 4)
	startServer(t, gust, h)

	t.Run("every agent completes and the merge is their exact sum", func(t *testing.T) {
		began := time.Now()
		runs := runNamespaceAgents(gust, h)
		took := time.Since(began)
		logRuns(t, runs)
		for _, r := range runs {
			if r.err != nil {
				t.Fatalf("agent %d failed: %v: %s", r.index, r.err, r.stderr)
			}
		}
		m := mergeExactly(t, gust, runs)
		t.Logf("run took %s; gust merge printed:\n%s", took.Round(time.Millisecond), m.text)
		for i := range runs {
			a, ok := m.agents[i]
			switch {
			case !ok:
				t.Errorf("shard %d/4 is missing from the merge", i)
			case a.Late || a.Short || a.Interrupted || a.Requests == 0:
				t.Errorf("agent %d/4 flagged or idle: %+v", i, a)
			}
		}
		if m.result.Rate != nsRate || m.result.Connections != nsConns {
			t.Errorf("merged run at %g/s on %d connections, want the run's %d/s on %d", m.result.Rate, m.result.Connections, nsRate, nsConns)
		}
	})

	t.Run("an agent's link cut mid-run ends in time and is reported short", func(t *testing.T) {
		const cut = 2
		link := h.port(h.agents[cut])
		// A second into the measurement, as if its cable were pulled.
		timer := time.AfterFunc(nsLead+time.Second, func() {
			if out, err := exec.Command("ip", "-n", h.bridge, "link", "set", link, "down").CombinedOutput(); err != nil {
				t.Errorf("ip link set %s down: %v: %s", link, err, out)
			}
		})
		defer timer.Stop()
		began := time.Now()
		runs := runNamespaceAgents(gust, h)
		took := time.Since(began)
		logRuns(t, runs)
		run(t, 10*time.Second, "ip", "-n", h.bridge, "link", "set", link, "up")
		if bound := nsLead + nsDuration + 10*time.Second; took > bound {
			t.Errorf("the run took %s with a link cut, want under %s", took, bound)
		}
		for _, r := range runs {
			if r.err != nil && r.index != cut {
				t.Fatalf("agent %d failed: %v: %s", r.index, r.err, r.stderr)
			}
		}
		m := mergeExactly(t, gust, runs)
		t.Logf("run took %s; gust merge printed:\n%s", took.Round(time.Millisecond), m.text)
		full := m.agents[0].Requests
		for i := range runs {
			a, ok := m.agents[i]
			switch {
			case i == cut && ok && !a.Short:
				t.Errorf("agent %d/4, cut, is not flagged short: %+v", i, a)
			case i == cut && ok && a.Requests >= full*3/4:
				t.Errorf("agent %d/4, cut a third into the run, answered %d, agent 0 %d", i, a.Requests, full)
			case i != cut && !ok:
				t.Errorf("shard %d/4 is missing from the merge", i)
			case i != cut && (a.Late || a.Short || a.Interrupted):
				t.Errorf("agent %d/4 flagged: %+v", i, a)
			}
		}
		if _, ok := m.agents[cut]; !ok && !strings.Contains(m.text, fmt.Sprintf("%d/4", cut)) {
			t.Errorf("shard %d/4, missing, is not named in the report:\n%s", cut, m.text)
		}
	})
}
