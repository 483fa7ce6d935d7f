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

// workerKillAfter is how long past a worker's own bound on its graceful
// shutdown (--drain-timeout) the parent waits, after forwarding a signal,
// before it kills workers that have not exited.
const workerKillAfter = 5 * time.Second

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
// that was set, except --workers and --pid-file (the parent's).
func workerArgs(flags *pflag.FlagSet) []string {
	args := []string{"serve"}
	flags.Visit(func(f *pflag.Flag) {
		if f.Name != "workers" && f.Name != "pid-file" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// Restarting workers: one that exits on its own is started again after
// workerRestartDelay (doubled each time it exits within
// workerCrashWindow of starting, up to a second), and one that does so
// workerCrashLimit times in a row is taken for broken: the others are
// stopped and its error returned.
const (
	workerRestartDelay = 50 * time.Millisecond
	workerCrashWindow  = time.Second
	workerCrashLimit   = 5
)

// runWorkers is gust serve --workers N: it starts cfg.Workers copies of
// this executable with args, each marked by workerEnv, forwards every signal
// from sigs to all of them (and SIGTERM once ctx is done), and returns
// when all have exited. A worker that exits on its own is started again
// (said on log, within a second) while the others go on serving; one
// that keeps exiting as soon as it starts stops them all, and runWorkers
// returns its error. A worker still running workerKillAfter past its
// --drain-timeout after a forwarded signal is killed.
func runWorkers(ctx context.Context, cfg serveConfig, args []string, sigs <-chan os.Signal, log io.Writer) error {
	n := cfg.Workers
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("serve: --workers: find this executable: %w", err)
	}
	type exit struct {
		i   int
		pid int
		err error
	}
	exits := make(chan exit, n)
	procs := make([]*os.Process, n)
	started := make([]time.Time, n)
	crashes := make([]int, n) // exits in a row within workerCrashWindow of starting
	running := 0
	signalAll := func(sig os.Signal) {
		for _, p := range procs {
			if p != nil {
				p.Signal(sig) // one that already exited has nothing to stop
			}
		}
	}
	name := func(i int) string { return fmt.Sprintf("%d/%d", i, n) }
	start := func(i int) error {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), workerEnv+"="+name(i))
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = workerProcAttr()
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("serve: start worker %s: %w", name(i), err)
		}
		procs[i], started[i] = cmd.Process, time.Now()
		running++
		go func() { exits <- exit{i, cmd.Process.Pid, cmd.Wait()} }()
		return nil
	}
	for i := 0; i < n; i++ {
		if err := start(i); err != nil {
			signalAll(syscall.SIGTERM)
			for ; running > 0; running-- {
				<-exits
			}
			return err
		}
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
		restarts = make(chan int, n)
	)
	stop := func(sig os.Signal) {
		signalAll(sig)
		if !stopping {
			stopping = true
			kill = time.After(cfg.drainTimeout() + workerKillAfter)
		}
	}
	for running > 0 {
		select {
		case sig := <-sigs:
			if sig == syscall.SIGHUP && !stopping {
				signalAll(sig) // each worker reloads; none stops
				continue
			}
			if sig == syscall.SIGUSR2 {
				fmt.Fprintln(log, "gust serve: SIGUSR2: upgrades need a single process (without --workers); still serving")
				continue
			}
			stop(sig)
		case <-done:
			done = nil
			stop(syscall.SIGTERM)
		case <-kill:
			signalAll(syscall.SIGKILL)
		case e := <-exits:
			running--
			procs[e.i] = nil
			if stopping {
				if e.err != nil && failed == nil {
					failed = fmt.Errorf("serve: worker %s: %w", name(e.i), e.err)
				}
				continue
			}
			why := "exited"
			if e.err != nil {
				why = e.err.Error()
			}
			if time.Since(started[e.i]) < workerCrashWindow {
				crashes[e.i]++
			} else {
				crashes[e.i] = 0
			}
			if crashes[e.i] >= workerCrashLimit {
				failed = fmt.Errorf("serve: worker %s keeps exiting within %v of starting (%d times in a row; last: %s)", name(e.i), workerCrashWindow, crashes[e.i], why)
				stop(syscall.SIGTERM)
				continue
			}
			delay := min(workerRestartDelay<<crashes[e.i], time.Second)
			fmt.Fprintf(log, "gust serve: worker %s (pid %d) %s; starting it again in %v\n", name(e.i), e.pid, why, delay)
			running++ // counted until it is started again, so the loop waits for it
			i := e.i
			time.AfterFunc(delay, func() { restarts <- i })
		case i := <-restarts:
			running--
			if stopping {
				continue
			}
			if err := start(i); err != nil {
				failed = err
				stop(syscall.SIGTERM)
				continue
			}
			fmt.Fprintf(log, "gust serve: worker %s started again (pid %d)\n", name(i), procs[i].Pid)
		}
	}
	return failed
}
