//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// gone reports whether process pid has exited (it may linger as a zombie
// until whoever adopted it reaps it).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")
}

// readPid returns the pid in a pid file, 0 while there is none.
func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// servingProcess is a gust serve process started by a test, and the
// copies its upgrades started.
type servingProcess struct {
	t       *testing.T
	pidFile string
	log     *lockedBuffer
	pids    []int
}

// startServing runs gust serve with args (the test binary as gust) and
// waits until its pid file names it.
func startServing(t *testing.T, extra []*os.File, env []string, args ...string) *servingProcess {
	t.Helper()
	sp := &servingProcess{t: t, pidFile: filepath.Join(t.TempDir(), "gust.pid"), log: &lockedBuffer{}}
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--pid-file=" + sp.pidFile}, args...)...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), env...)
	cmd.Stdout, cmd.Stderr = sp.log, sp.log
	cmd.ExtraFiles = extra
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	t.Cleanup(func() {
		for _, pid := range sp.pids {
			syscall.Kill(pid, syscall.SIGKILL) // none is left behind
		}
	})
	sp.pids = append(sp.pids, cmd.Process.Pid)
	sp.waitServing(cmd.Process.Pid)
	return sp
}

// waitServing waits until the pid file names pid.
func (sp *servingProcess) waitServing(pid int) {
	sp.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for readPid(sp.pidFile) != pid {
		if time.Now().After(deadline) || gone(pid) {
			sp.t.Fatalf("pid %d did not write the pid file; log:\n%s", pid, sp.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// upgrade sends SIGUSR2 to the serving process and waits until a new
// one serves and the old one has exited.
func (sp *servingProcess) upgrade() {
	sp.t.Helper()
	old := readPid(sp.pidFile)
	if err := syscall.Kill(old, syscall.SIGUSR2); err != nil {
		sp.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		pid := readPid(sp.pidFile)
		if pid != old && pid != 0 && gone(old) {
			sp.pids = append(sp.pids, pid)
			return
		}
		if time.Now().After(deadline) {
			sp.t.Fatalf("no upgrade of pid %d within 30s; log:\n%s", old, sp.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop ends the serving process with SIGTERM and waits for it.
func (sp *servingProcess) stop() {
	sp.t.Helper()
	pid := readPid(sp.pidFile)
	syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(20 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			sp.t.Fatalf("pid %d still running 20s after SIGTERM", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(sp.pidFile); err == nil {
		sp.t.Errorf("the pid file outlived the last process")
	}
}

// TestServeUpgradesOnSIGUSR2WithoutAFailedRequest upgrades gust serve
// three times under an open-model load over HTTP/1.1, h2c, TLS and
// WebSocket: every request is answered 200 (every message echoed), none
// fails, WebSocket clients get 1001 and reconnect, each old process
// exits, and the log says each step.
func TestServeUpgradesOnSIGUSR2WithoutAFailedRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  []string
		scheme string
		http2  bool
	}{
		{"HTTP/1.1", nil, "http", false},
		{"h2c", []string{"--http2"}, "http", true},
		{"TLS", []string{"--tls-self-signed"}, "https", false},
		{"WebSocket", nil, "ws", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			sp := startServing(t, nil, nil, append([]string{"--addr=" + addr, "--loops=2"}, tc.flags...)...)
			const upgrades = 3
			cfg := load.Config{
				URL: tc.scheme + "://" + addr + "/" + map[bool]string{true: "ws"}[tc.scheme == "ws"], Connections: 20, Rate: 2000, Loops: 1,
				Duration: 60 * time.Second, HTTP2: tc.http2, Timeout: 5 * time.Second,
				TLS: load.TLSConfig{Insecure: true},
			}
			bg := startLoad(t, cfg)
			for range upgrades {
				bg.moreAnswered(500) // load runs between the upgrades, and after the last
				sp.upgrade()
			}
			bg.moreAnswered(500)
			res := bg.stop()
			if n := res.ErrorCount(); n > 0 {
				t.Errorf("%d requests failed across %d upgrades: %v", n, upgrades, res.Errors)
			}
			if tc.scheme == "ws" && res.WebSocket.Closes[1001] == 0 {
				t.Errorf("closes %v: the WebSocket clients were not told 1001 going away", res.WebSocket.Closes)
			}
			for code, n := range res.Status {
				if code != 200 {
					t.Errorf("%d responses %d", n, code)
				}
			}
			if res.Requests < 1000 {
				t.Errorf("only %d responses: the load did not run through the upgrades", res.Requests)
			}
			var goAwayRetried int64
			if res.HTTP2 != nil {
				goAwayRetried = res.HTTP2.Retried
			}
			t.Logf("%d responses, %d retried (closed unanswered), %d retried (GOAWAY), %d reconnects", res.Requests, res.Retried, goAwayRetried, res.Reconnects)
			sp.stop()
			log := sp.log.String()
			if got := strings.Count(log, "serves now;"); got != upgrades {
				t.Errorf("%d upgrades said, want %d; log:\n%s", got, upgrades, log)
			}
		})
	}
}

// TestServeTakesSocketsFromSystemd starts gust serve as systemd's socket
// activation does: a listening socket as descriptor 3 and LISTEN_FDS=1.
// It serves that socket (the --addr it was given is never bound), on
// either engine.
func TestServeTakesSocketsFromSystemd(t *testing.T) {
	for _, engine := range []string{"gust", "nethttp"} {
		t.Run(engine, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			f, err := ln.(*net.TCPListener).File()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			unused := fmt.Sprintf("127.0.0.1:%d", freePort(t))
			sp := startServing(t, []*os.File{f}, []string{"LISTEN_FDS=1"}, "--addr="+unused, "--engine="+engine, "--loops=2")
			ln.Close() // the server holds the socket now
			f.Close()
			resp, err := http.Get("http://" + ln.Addr().String() + "/")
			if err != nil {
				t.Fatalf("the inherited socket is not served: %v; log:\n%s", err, sp.log)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
			if c, err := net.Dial("tcp", unused); err == nil {
				c.Close()
				t.Errorf("--addr %s was bound too", unused)
			}
			sp.stop()
		})
	}
}

// backgroundLoad is a gust load run going on while a test does something
// to its server.
type backgroundLoad struct {
	t        *testing.T
	answered atomic.Int64 // responses so far, updated once a second
	cancel   context.CancelFunc
	done     chan backgroundOutcome
}

type backgroundOutcome struct {
	res *result.Result
	err error
}

// startLoad starts load.Run with cfg (its Progress taken) until stop.
func startLoad(t *testing.T, cfg load.Config) *backgroundLoad {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	bg := &backgroundLoad{t: t, cancel: cancel, done: make(chan backgroundOutcome, 1)}
	cfg.Progress = func(p load.Progress) { bg.answered.Store(p.Requests) }
	go func() {
		res, err := load.Run(ctx, cfg)
		bg.done <- backgroundOutcome{res, err}
	}()
	return bg
}

// moreAnswered waits for n more responses, failing the test after 20s.
func (bg *backgroundLoad) moreAnswered(n int64) {
	bg.t.Helper()
	from := bg.answered.Load()
	deadline := time.Now().Add(20 * time.Second)
	for bg.answered.Load() < from+n {
		if time.Now().After(deadline) {
			bg.t.Fatalf("fewer than %d responses in 20s", n)
		}
		time.Sleep(20 * time.Millisecond) // polling the progress, not synchronising
	}
}

// stop ends the run and returns its result.
func (bg *backgroundLoad) stop() *result.Result {
	bg.t.Helper()
	bg.cancel()
	out := <-bg.done
	if out.err != nil {
		bg.t.Fatal(out.err)
	}
	return out.res
}
