package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

// workerEnv marks a process started by gust serve --workers as one of its
// workers; its value is the worker's "I/N". A worker serves the port with
// SO_REUSEPORT and never starts workers of its own.
const workerEnv = "GUST_SERVE_WORKER"

// workerKillAfter is how long after forwarding a signal the parent waits
// before it kills workers that have not exited: a worker's own graceful
// shutdown is bounded by shutdownGrace.
const workerKillAfter = shutdownGrace + 5*time.Second

// checkWorkers refuses --workers settings that cannot work.
func checkWorkers(cfg serveConfig) error {
	switch {
	case cfg.Workers < 1:
		return fmt.Errorf("serve: --workers must be at least 1, got %d", cfg.Workers)
	case cfg.Workers == 1:
		return nil
	case runtime.GOOS != "linux":
		return errors.New("serve: --workers needs Linux, where SO_REUSEPORT spreads connections over processes")
	case cfg.DebugAddr != "":
		return errors.New("serve: --debug-addr is per process and cannot be shared by --workers; drop one of them")
	}
	_, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("serve: --addr %q: %w", cfg.Addr, err)
	}
	if port == "" || port == "0" {
		return fmt.Errorf("serve: --workers needs a fixed port in --addr (port %q would give every worker a port of its own)", port)
	}
	return nil
}

// workerArgs returns the command line of a worker: serve with every flag
// that was set, except --workers.
func workerArgs(flags *pflag.FlagSet) []string {
	args := []string{"serve"}
	flags.Visit(func(f *pflag.Flag) {
		if f.Name != "workers" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// runWorkers is gust serve --workers N: it starts cfg.Workers copies of
// this executable with args, each marked by workerEnv, forwards every signal
// from sigs to all of them (and SIGTERM once ctx is done), and returns
// when all have exited. A worker that exits on its own takes the others
// down, and runWorkers returns its error; a worker still running
// workerKillAfter after a forwarded signal is killed.
func runWorkers(ctx context.Context, cfg serveConfig, args []string, sigs <-chan os.Signal, log io.Writer) error {
	n := cfg.Workers
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("serve: --workers: find this executable: %w", err)
	}
	type exit struct {
		i   int
		err error
	}
	exits := make(chan exit, n)
	var procs []*os.Process
	signalAll := func(sig os.Signal) {
		for _, p := range procs {
			p.Signal(sig) // one that already exited has nothing to stop
		}
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%d/%d", i, n)
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), workerEnv+"="+name)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = workerProcAttr()
		if err := cmd.Start(); err != nil {
			signalAll(syscall.SIGTERM)
			for range procs {
				<-exits
			}
			return fmt.Errorf("serve: start worker %s: %w", name, err)
		}
		procs = append(procs, cmd.Process)
		go func() { exits <- exit{i, cmd.Wait()} }()
	}
	pids := make([]string, n)
	for i, p := range procs {
		pids[i] = fmt.Sprint(p.Pid)
	}
	fmt.Fprintf(log, "gust serve: %d workers (pids %s) sharing %s\n", n, strings.Join(pids, ", "), cfg.Addr)

	var (
		failed   error
		stopping bool
		kill     <-chan time.Time
		done     = ctx.Done()
	)
	stop := func(sig os.Signal) {
		signalAll(sig)
		if !stopping {
			stopping = true
			kill = time.After(workerKillAfter)
		}
	}
	for running := n; running > 0; {
		select {
		case sig := <-sigs:
			stop(sig)
		case <-done:
			done = nil
			stop(syscall.SIGTERM)
		case <-kill:
			signalAll(syscall.SIGKILL)
		case e := <-exits:
			running--
			if e.err != nil && failed == nil {
				failed = fmt.Errorf("serve: worker %d/%d: %w", e.i, n, e.err)
			}
			if !stopping {
				if failed == nil {
					failed = fmt.Errorf("serve: worker %d/%d exited", e.i, n)
				}
				stop(syscall.SIGTERM) // the rest go down with it
			}
		}
	}
	return failed
}
