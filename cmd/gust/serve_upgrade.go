package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gust-http/gust/server"
)

// Upgrades without downtime, as nginx does them: on SIGUSR2, gust serve
// starts a new copy of its own executable (the binary on disk now, which
// may be newer) with the same flags, hands it its listening sockets as
// extra files (LISTEN_FDS, as systemd's socket activation does), and waits
// until the copy serves. Then this process drains within --drain-timeout
// (no new connections, requests in flight finished, idle keep-alive
// connections closed, HTTP/2 GOAWAY, WebSocket 1001) and exits; the copy
// accepts from the same sockets all along, so no connection is refused.
// A copy that fails to start leaves this process serving, and says why.

// readyEnv names the descriptor on which a copy started by an upgrade
// writes its pid once it serves.
const readyEnv = "GUST_SERVE_READY_FD"

// upgradeStartTimeout bounds how long a copy may take to start serving.
const upgradeStartTimeout = 30 * time.Second

// inheritedListeners returns the listeners a predecessor or systemd
// passed to this process, if any.
func inheritedListeners() ([]*os.File, error) {
	files, err := server.InheritedListeners()
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return files, nil
}

// upgradeSignals returns cfg's SIGUSR2 channel, notified since the
// process started (so that a SIGUSR2 that comes as soon as the pid file
// is written does not kill it), or a new one.
func upgradeSignals(cfg serveConfig) chan os.Signal {
	if cfg.usr2 != nil {
		return cfg.usr2
	}
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	return usr2
}

// watchUpgrade makes SIGUSR2 start a copy of this process on srv's
// listeners. The channel it returns yields the copy's pid once the copy
// serves: then this process should drain and exit. stop ends the watch,
// and kills a copy still starting (the process is stopping: no upgrade).
// An upgrade that fails writes this process's pid to the pid file again.
func watchUpgrade(srv *server.Server, cfg serveConfig, log io.Writer) (upgraded <-chan int, stop func()) {
	usr2 := upgradeSignals(cfg)
	done := make(chan struct{})
	ready := make(chan int, 1)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-usr2:
			}
			pid, err := startCopy(srv, log, done)
			if err != nil {
				writePidFile(cfg.PidFile) // the copy may have written its own
				fmt.Fprintf(log, "gust serve: SIGUSR2: upgrade failed, still serving (pid %d): %v\n", os.Getpid(), err)
				continue
			}
			fmt.Fprintf(log, "gust serve: SIGUSR2: pid %d serves now; pid %d drains and exits\n", pid, os.Getpid())
			ready <- pid
			return
		}
	}()
	return ready, func() {
		signal.Stop(usr2)
		close(done)
	}
}

// startCopy starts this executable again with the same arguments and
// srv's listeners, and returns its pid once it says it serves; a copy not
// serving yet when done closes is killed. log should be a file (stderr):
// through a pipe, the copy would lose its log when this process exits.
func startCopy(srv *server.Server, log io.Writer, done <-chan struct{}) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find this executable: %w", err)
	}
	files, err := srv.ListenerFiles()
	if err != nil {
		return 0, err
	}
	defer closeFiles(files)
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	// Extra files are numbered from 3: the listeners first, then the
	// pipe the copy says it is ready on.
	cmd.ExtraFiles = append(append([]*os.File{}, files...), w)
	cmd.Env = append(withoutEnv(os.Environ(), "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", readyEnv),
		"LISTEN_FDS="+strconv.Itoa(len(files)), readyEnv+"="+strconv.Itoa(3+len(files)))
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", exe, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		said <- strings.TrimSpace(line)
	}()
	select {
	case line := <-said:
		if pid, err := strconv.Atoi(line); err == nil && pid == cmd.Process.Pid {
			return pid, nil
		}
		cmd.Process.Kill()
		return 0, fmt.Errorf("the new process (pid %d) exited before serving: %v", cmd.Process.Pid, <-exited)
	case <-time.After(upgradeStartTimeout):
		cmd.Process.Kill()
		return 0, fmt.Errorf("the new process (pid %d) did not serve within %v; killed", cmd.Process.Pid, upgradeStartTimeout)
	case <-done:
		cmd.Process.Kill()
		return 0, fmt.Errorf("stopping: the new process (pid %d) killed before it served", cmd.Process.Pid)
	}
}

// sayReady tells the process that started this one by an upgrade that
// this one serves now: its pid, on the descriptor readyEnv names.
func sayReady() {
	v := os.Getenv(readyEnv)
	if v == "" {
		return
	}
	os.Unsetenv(readyEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return
	}
	f := os.NewFile(uintptr(fd), "ready")
	fmt.Fprintf(f, "%d\n", os.Getpid())
	f.Close()
}

// writePidFile writes this process's pid to path (empty: none), replacing
// what a predecessor wrote; removePidFile removes it at exit if it still
// names this process (a successor's is left alone).
func writePidFile(path string) error {
	if path == "" {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("serve: --pid-file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("serve: --pid-file: %w", err)
	}
	return nil
}

func removePidFile(path string) {
	if path == "" {
		return
	}
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
		os.Remove(path)
	}
}

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// netHTTPListener is --engine nethttp's listener: the one systemd's socket
// activation passed, or --addr's.
func netHTTPListener(cfg serveConfig, lc net.ListenConfig) (net.Listener, error) {
	files, err := inheritedListeners()
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		ln, err := lc.Listen(context.Background(), "tcp", cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("serve: listen on --addr %q: %w", cfg.Addr, err)
		}
		return ln, nil
	}
	defer closeFiles(files)
	if len(files) != 1 {
		return nil, fmt.Errorf("serve: %d inherited listeners (LISTEN_FDS); --engine nethttp serves one", len(files))
	}
	ln, err := net.FileListener(files[0])
	if err != nil {
		return nil, fmt.Errorf("serve: inherited listener: %w", err)
	}
	return ln, nil
}

// listenGust makes srv listen on the sockets a predecessor or systemd
// passed to this process, or else on --addr.
func listenGust(srv *server.Server, cfg serveConfig) error {
	files, err := inheritedListeners()
	if err != nil {
		return err
	}
	if len(files) == 0 {
		if err := srv.Listen(cfg.Addr); err != nil {
			return fmt.Errorf("serve: listen on --addr %q: %w", cfg.Addr, err)
		}
		return nil
	}
	defer closeFiles(files)
	if err := srv.ListenFiles(files); err != nil {
		return fmt.Errorf("serve: inherited listeners (LISTEN_FDS): %w", err)
	}
	return nil
}

// drainTimeout is --drain-timeout, shutdownGrace when unset (a
// serveConfig made in code).
func (c serveConfig) drainTimeout() time.Duration {
	if c.DrainTimeout <= 0 {
		return shutdownGrace
	}
	return c.DrainTimeout
}
