package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

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
gust load (or wrk/hey/ab, or h2load for HTTP/2), samples its CPU, memory, goroutines
and GC, and writes results.json, results.csv, report.md and report.html into --out.
TLS and HTTP/2 scenarios: --config lab/scenarios/tls.json --loader wrk, and
--config lab/scenarios/h2.json --loader h2load (docs/BENCHMARKS.md); HTTP/3
against quic-go's server: --config lab/scenarios/h3.json. Files (1 KiB,
100 KiB, 10 MiB, against nginx with sendfile on): --config lab/scenarios/files.json.`,
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
	f.StringArrayVar(&cfg.Servers, "server", nil, "NAME='COMMAND' to start per cell; {addr}, {debug}, {delay}, {mode} (http1, tls, tls-no-resume, h2, h2c, h3, files) and {root} (a file scenario's directory) are filled in (repeatable)")
	f.StringArrayVar(&cfg.Targets, "target", nil, "NAME=URL of a server already running, loaded but not sampled (repeatable)")
	f.StringSliceVar(&cfg.Only, "servers", nil, "run only these servers, by name (default: all)")
	f.StringVar(&cfg.Loader, "loader", "gust", "load generator: gust (in-process), wrk, hey, ab or h2load (HTTP/2 scenarios)")
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
	gust, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: find gust's own binary: %w", err)
	}
	servers, err := lab.SelectServers(lab.Selection{
		Gust: gust, PeerDir: lab.PeersBinDir(), Servers: cfg.Servers, Targets: cfg.Targets, Only: cfg.Only,
	}, lab.BuildPeers, stderr)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	allowed, err := lab.AllowedCPUs()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	serverCPUs, clientCPUs, err := lab.ChooseCPUs(allowed, cfg.ServerCPUs, cfg.ClientCPUs)
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
	for _, line := range lab.NotApplicable(servers, scenarios) {
		fmt.Fprintln(stdout, line)
	}
	lab.WriteTableHead(stdout)
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
			lab.WriteTableRow(stdout, c)
		},
	}
	cells := runner.Run(ctx)
	res := &lab.Results{
		Meta: lab.Meta{
			Date:       began.UTC().Format(time.RFC3339),
			Command:    strings.Join(append([]string{"gust"}, os.Args[1:]...), " "),
			GoVersion:  runtime.Version(),
			Kernel:     lab.KernelRelease(),
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
