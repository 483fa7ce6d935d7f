package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/lab"
)

// benchConfig holds gust bench's flags.
type benchConfig struct {
	Quick      bool
	Config     string
	Out        string
	Repeat     int
	Servers    []string // --server NAME=COMMAND
	Targets    []string // --target NAME=URL
	Only       []string // --servers a,b,c
	Loader     string
	ServerCPUs string
	ClientCPUs string
	Quiet      bool
	Profile    bool
}

func newBenchCmd() *cobra.Command {
	var cfg benchConfig
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the benchmark matrix: every server under every scenario, pinned, sampled, reported",
		Long: `Starts each server pinned to half of the CPUs, drives it from the other half with
gust load (or wrk/hey), samples its CPU, memory, goroutines and GC, and writes
results.json, results.csv, report.md and report.html into --out.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runBench(c.Context(), cfg, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&cfg.Quick, "quick", false, "run the reduced matrix (under a minute)")
	f.StringVar(&cfg.Config, "config", "", "scenario file (JSON) instead of the embedded matrix")
	f.StringVar(&cfg.Out, "out", "out/bench", "directory for results.json, results.csv, report.md, report.html")
	f.IntVar(&cfg.Repeat, "repeat", 1, "run each cell N times on fresh servers and report the median by req/s")
	f.StringArrayVar(&cfg.Servers, "server", nil, "NAME='COMMAND' to start per cell; {addr}, {debug} and {delay} are filled in (repeatable)")
	f.StringArrayVar(&cfg.Targets, "target", nil, "NAME=URL of a server already running, loaded but not sampled (repeatable)")
	f.StringSliceVar(&cfg.Only, "servers", nil, "run only these servers, by name (default: all)")
	f.StringVar(&cfg.Loader, "loader", "gust", "load generator: gust (in-process), wrk, hey or ab")
	f.StringVar(&cfg.ServerCPUs, "server-cpus", "", "CPUs for the servers, e.g. 0 or 0-3 (default: the first half of the allowed CPUs)")
	f.StringVar(&cfg.ClientCPUs, "client-cpus", "", "CPUs for the load generator (default: the second half)")
	f.BoolVar(&cfg.Quiet, "quiet", false, "no progress line")
	f.BoolVar(&cfg.Profile, "profile", false, "capture a CPU profile of each server during each cell into DIR/profiles and report its top entries by cumulative time")
	cmd.AddCommand(&cobra.Command{
		Use:   "compare A.json B.json",
		Short: "Show the change in req/s, p99 and CPU per request from one results.json to another",
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			a, err := lab.ReadResults(args[0])
			if err != nil {
				return fmt.Errorf("bench compare: %w", err)
			}
			b, err := lab.ReadResults(args[1])
			if err != nil {
				return fmt.Errorf("bench compare: %w", err)
			}
			if err := lab.WriteCompare(c.OutOrStdout(), a, b); err != nil {
				return fmt.Errorf("bench compare: %w", err)
			}
			return nil
		},
	})
	return cmd
}

// benchBuiltins are the servers gust bench knows, in report order.
var benchPeers = []string{"fasthttp", "nethttp", "nbio"}

func runBench(ctx context.Context, cfg benchConfig, stdout, stderr io.Writer) error {
	began := time.Now()
	if cfg.Repeat < 1 {
		return fmt.Errorf("bench: --repeat must be at least 1, got %d", cfg.Repeat)
	}
	scenarios := lab.DefaultScenarios(cfg.Quick)
	if cfg.Config != "" {
		if cfg.Quick {
			return errors.New("bench: give --quick or --config, not both")
		}
		var err error
		if scenarios, err = lab.LoadScenarios(cfg.Config); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	loader, err := lab.NewLoader(cfg.Loader)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	servers, err := benchServers(cfg, stderr)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	serverCPUs, clientCPUs, err := benchCPUs(cfg)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if slices.Equal(serverCPUs, clientCPUs) {
		fmt.Fprintf(stderr, "gust bench: only CPUs %s: servers and load generator share them\n", serverCPUs)
	}
	if err := lab.PinProcess(clientCPUs); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if gl, ok := loader.(lab.GustLoader); ok {
		gl.Loops = len(clientCPUs)
		loader = gl
	}
	nofile, err := lab.RaiseOpenFiles()
	if err != nil {
		fmt.Fprintf(stderr, "gust bench: cannot raise the open-file limit: %v\n", err)
	}
	for _, sc := range scenarios {
		if uint64(sc.Connections)+64 > nofile && nofile > 0 {
			fmt.Fprintf(stderr, "gust bench: scenario %s needs %d connections but the open-file limit is %d: expect errors\n", sc.Name, sc.Connections, nofile)
		}
	}

	profileDir := ""
	if cfg.Profile {
		profileDir = filepath.Join(cfg.Out, "profiles")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	progress := !cfg.Quiet && isTerminal(stderr)
	fmt.Fprintf(stdout, "servers on CPUs %s, %s load on CPUs %s, %d scenarios x %d servers\n",
		serverCPUs, loader.Name(), clientCPUs, len(scenarios), len(servers))
	fmt.Fprintf(stdout, "%-14s %-18s %6s %10s %9s %9s %8s %8s %10s %7s\n",
		"server", "scenario", "conns", "req/s", "p50 ms", "p99 ms", "cpu/req", "rss MB", "goroutines", "errors")
	runner := &lab.Runner{
		Servers: servers, Scenarios: scenarios, Loader: loader, ServerCPUs: serverCPUs, Repeat: cfg.Repeat,
		ProfileDir: profileDir,
		OnStart: func(server string, sc lab.Scenario, i, total int) {
			if progress {
				est := time.Duration(sc.Duration+sc.Warmup) * time.Duration(cfg.Repeat)
				fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s %s: about %s...", i+1, total, server, sc.Name, est)
			}
		},
		OnCell: func(c lab.Cell, i, total int) {
			if progress {
				fmt.Fprint(stderr, "\r\033[K")
			}
			printCellRow(stdout, c)
		},
	}
	cells := runner.Run(ctx)
	res := &lab.Results{
		Meta: lab.Meta{
			Date:       began.UTC().Format(time.RFC3339),
			Command:    strings.Join(append([]string{"gust"}, os.Args[1:]...), " "),
			GoVersion:  runtime.Version(),
			Kernel:     kernelRelease(),
			ServerCPUs: serverCPUs.String(),
			ClientCPUs: clientCPUs.String(),
			Loader:     loader.Name(),
			Repeat:     cfg.Repeat,
			OpenFiles:  nofile,
			TookS:      time.Since(began).Seconds(),
		},
		Cells: cells,
	}
	paths, err := lab.WriteAll(cfg.Out, res)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	failed := 0
	for _, c := range cells {
		if c.Error != "" {
			failed++
		}
	}
	fmt.Fprintf(stdout, "%d cells (%d failed) in %.0f s; wrote %s\n", len(cells), failed, time.Since(began).Seconds(), strings.Join(paths, ", "))
	if ctx.Err() != nil {
		return errors.New("bench: interrupted; the report holds the cells that finished")
	}
	if len(cells) > 0 && failed == len(cells) {
		return exitError{1}
	}
	return nil
}

// printCellRow prints one line of the terminal table.
func printCellRow(w io.Writer, c lab.Cell) {
	if c.Error != "" {
		fmt.Fprintf(w, "%-14s %-18s %6d  error: %s\n", c.Server, c.Scenario, c.Connections, c.Error)
		return
	}
	f := func(v float64, prec int) string {
		if v < 0 {
			return "-"
		}
		return fmt.Sprintf("%.*f", prec, v)
	}
	rss := "-"
	if c.RSSPeakBytes >= 0 {
		rss = fmt.Sprintf("%.1f", float64(c.RSSPeakBytes)/(1<<20))
	}
	g := "-"
	if c.GoroutinesMax >= 0 {
		g = fmt.Sprint(c.GoroutinesMax)
	}
	rps := fmt.Sprintf("%.0f", c.RPS)
	if c.IdealRPS > 0 {
		rps += fmt.Sprintf("/%.0f", c.IdealRPS)
	}
	fmt.Fprintf(w, "%-14s %-18s %6d %10s %9s %9s %8s %8s %10s %7d\n", c.Server, c.Scenario, c.Connections, rps,
		f(c.Latency.P50/1000, 2), f(c.Latency.P99/1000, 2), f(c.CPUUsPerReq, 2), rss, g, c.Errors)
}

// benchServers returns the servers to run: gust's built-ins and those
// given by --server and --target, narrowed by --servers. It builds the
// peer binaries when a built-in peer is selected.
func benchServers(cfg benchConfig, stderr io.Writer) ([]lab.Server, error) {
	gust, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find gust's own binary: %w", err)
	}
	peerDir, peerErr := peersBinDir()
	all := lab.BuiltinServers(peerDir, gust)
	for _, s := range cfg.Servers {
		name, command, err := lab.ParseServerFlag(s)
		if err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
		all = append(all, lab.Server{Name: name, Command: command})
	}
	for _, s := range cfg.Targets {
		name, url, err := lab.ParseServerFlag(s)
		if err != nil {
			return nil, fmt.Errorf("--target: %w", err)
		}
		if !strings.HasPrefix(url, "http://") {
			return nil, fmt.Errorf("--target %s: URL %q must start with http://", name, url)
		}
		all = append(all, lab.Server{Name: name, URL: url})
	}
	var out []lab.Server
	names := map[string]bool{}
	for _, s := range all {
		if names[s.Name] && !slices.Contains(benchPeers, s.Name) && !strings.HasPrefix(s.Name, "gust-") {
			return nil, fmt.Errorf("server %q is given twice", s.Name)
		}
		names[s.Name] = true
	}
	for _, n := range cfg.Only {
		if !names[n] {
			return nil, fmt.Errorf("--servers: no server %q (known: %s)", n, strings.Join(slices.Sorted(maps.Keys(names)), ", "))
		}
	}
	// A --server or --target of the same name as a built-in replaces it.
	for i, s := range all {
		replaced := slices.ContainsFunc(all[i+1:], func(o lab.Server) bool { return o.Name == s.Name })
		if replaced || (len(cfg.Only) > 0 && !slices.Contains(cfg.Only, s.Name)) {
			continue
		}
		out = append(out, s)
	}
	needPeers := slices.ContainsFunc(out, func(s lab.Server) bool {
		return slices.Contains(benchPeers, s.Name) && s.Command != "" && strings.Contains(s.Command, peerDir)
	})
	if needPeers {
		if peerErr == nil {
			peerErr = buildPeers(peerDir, stderr)
		}
		if peerErr != nil {
			fmt.Fprintf(stderr, "gust bench: %v; the peer servers' cells will say so\n", peerErr)
			for i := range out {
				if slices.Contains(benchPeers, out[i].Name) && strings.Contains(out[i].Command, peerDir) {
					out[i].Missing = out[i].Name + ": " + peerErr.Error()
				}
			}
		}
	}
	return out, nil
}

// peersBinDir returns where the peer binaries are built: the user cache dir.
func peersBinDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "gust", "bench-peers"), nil
}

// buildPeers builds peers/fasthttp, nethttp and nbio into dir with the go
// command, from the gust repository that holds the working directory.
func buildPeers(dir string, stderr io.Writer) error {
	src, err := findPeers()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("peers not built: the go command is not on PATH")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "gust bench: building %s from %s into %s\n", strings.Join(benchPeers, ", "), src, dir)
	args := []string{"build", "-o", dir + "/"}
	for _, p := range benchPeers {
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

// findPeers looks for the peers module in the working directory and its parents.
func findPeers() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "peers", "go.mod")); err == nil && strings.Contains(string(b), "/peers") {
			return filepath.Join(d, "peers"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("peers not built: run gust bench inside the gust repository (peers/ not found)")
		}
	}
}

// benchCPUs returns the server and client CPU sets from the flags or by
// splitting the allowed CPUs in half.
func benchCPUs(cfg benchConfig) (server, client lab.CPUSet, err error) {
	allowed, err := lab.AllowedCPUs()
	if err != nil {
		return nil, nil, err
	}
	server, client = lab.SplitCPUs(allowed)
	if cfg.ServerCPUs != "" {
		if server, err = lab.ParseCPUSet(cfg.ServerCPUs); err != nil {
			return nil, nil, fmt.Errorf("--server-cpus: %w", err)
		}
	}
	if cfg.ClientCPUs != "" {
		if client, err = lab.ParseCPUSet(cfg.ClientCPUs); err != nil {
			return nil, nil, fmt.Errorf("--client-cpus: %w", err)
		}
	}
	for _, c := range append(slices.Clone(server), client...) {
		if !slices.Contains(allowed, c) {
			return nil, nil, fmt.Errorf("CPU %d is not among the allowed CPUs %s", c, allowed)
		}
	}
	return server, client, nil
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}
