//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer collects the workers' output, written from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// workersRun is gust serve --workers running in the background.
type workersRun struct {
	log  *lockedBuffer
	sigs chan os.Signal
	done chan error
	pids []int
}

// startWorkers runs n workers of engine on port and waits until every one
// of them has said it is listening.
func startWorkers(t *testing.T, engine string, n, port int) *workersRun {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	w := &workersRun{log: &lockedBuffer{}, sigs: make(chan os.Signal, 1), done: make(chan error, 1)}
	cfg := serveConfig{Addr: addr, Engine: engine, Workers: n}
	args := []string{"serve", "--addr=" + addr, "--engine=" + engine}
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		w.done <- runWorkers(context.Background(), cfg, args, w.sigs, w.log)
	}()
	t.Cleanup(func() {
		select {
		case w.sigs <- syscall.SIGKILL: // a test that failed leaves none behind
		default:
		}
		<-returned
	})
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(w.log.String(), "listening on") < n || !strings.Contains(w.log.String(), "workers (pids ") {
		if time.Now().After(deadline) {
			t.Fatalf("workers did not all start within 20s:\n%s", w.log)
		}
		select {
		case err := <-w.done:
			t.Fatalf("workers exited early: %v\n%s", err, w.log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	var line string
	for _, l := range strings.Split(w.log.String(), "\n") {
		if strings.Contains(l, "workers (pids ") {
			line = l
		}
	}
	_, list, ok := strings.Cut(line, "(pids ")
	list, _, _ = strings.Cut(list, ")")
	for _, p := range strings.Split(list, ", ") {
		pid, err := strconv.Atoi(p)
		if !ok || err != nil {
			t.Fatalf("line %q does not list the workers' pids", line)
		}
		w.pids = append(w.pids, pid)
	}
	if len(w.pids) != n {
		t.Fatalf("line %q lists %d pids, want %d", line, len(w.pids), n)
	}
	return w
}

// stop sends sig to the parent and waits for it to return.
func (w *workersRun) stop(t *testing.T, sig os.Signal) error {
	t.Helper()
	w.sigs <- sig
	select {
	case err := <-w.done:
		return err
	case <-time.After(shutdownGrace + workerKillAfter + 5*time.Second):
		t.Fatalf("gust serve --workers still running after %s", sig)
		return nil
	}
}

// socketsOnPort counts, per process, the TCP sockets it holds whose local
// port is port, by state: "0A" listening, "01" established.
func socketsOnPort(t *testing.T, pids []int, port int) map[int]map[string]int {
	t.Helper()
	state := map[string]string{} // socket inode -> state, for sockets on port
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				state[fields[9]] = fields[3]
			}
		}
		f.Close()
	}
	out := map[int]map[string]int{}
	for _, pid := range pids {
		out[pid] = map[string]int{}
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			link, err := os.Readlink(fd)
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
				if st, ok := state[strings.TrimSuffix(inode, "]")]; ok {
					out[pid][st]++
				}
			}
		}
	}
	return out
}

// TestServeWorkersShareThePort runs three workers of each engine and
// checks that each listens on the port, that connections are spread over
// them, and that a forwarded SIGTERM stops them all.
func TestServeWorkersShareThePort(t *testing.T) {
	for _, engine := range []string{"gust", "nethttp"} {
		t.Run(engine, func(t *testing.T) {
			port := freePort(t)
			w := startWorkers(t, engine, 3, port)

			const conns = 30
			var open []net.Conn
			defer func() {
				for _, c := range open {
					c.Close()
				}
			}()
			for i := 0; i < conns; i++ {
				c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
				if err != nil {
					t.Fatal(err)
				}
				open = append(open, c)
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
					t.Fatalf("connection %d: %q, %v", i, line, err)
				}
			}
			byPID := socketsOnPort(t, w.pids, port)
			served, total := 0, 0
			for pid, states := range byPID {
				if states["0A"] == 0 {
					t.Errorf("worker %d holds no listener on port %d", pid, port)
				}
				if states["01"] > 0 {
					served++
				}
				total += states["01"]
			}
			// With 30 connections hashed over 3 workers, all on one worker
			// would happen about once in 10^14 runs.
			if total != conns || served < 2 {
				t.Errorf("established connections per worker %v: want %d in all, on more than one worker", byPID, conns)
			}
			for _, c := range open {
				c.Close()
			}
			open = nil

			if err := w.stop(t, syscall.SIGTERM); err != nil {
				t.Errorf("after SIGTERM: %v\n%s", err, w.log)
			}
			for _, pid := range w.pids {
				if err := syscall.Kill(pid, 0); err == nil {
					t.Errorf("worker %d still runs after the parent returned", pid)
				}
			}
		})
	}
}

// TestServeWorkerThatDiesComesBack kills one worker: the parent starts
// it again (within a second, and says so), the other goes on serving
// under its own pid, the port answers, and a SIGTERM still stops all.
func TestServeWorkerThatDiesComesBack(t *testing.T) {
	port := freePort(t)
	w := startWorkers(t, "gust", 2, port)
	if err := syscall.Kill(w.pids[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var again int
	deadline := time.Now().Add(20 * time.Second)
	for again == 0 {
		log := w.log.String()
		if _, after, ok := strings.Cut(log, "worker 1/2 started again (pid "); ok {
			pid, _, _ := strings.Cut(after, ")")
			again, _ = strconv.Atoi(pid)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker 1/2 was not started again within 20s:\n%s", log)
		}
		select {
		case err := <-w.done:
			t.Fatalf("the parent returned after a worker died: %v\n%s", err, w.log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	log := w.log.String()
	said := fmt.Sprintf("worker 1/2 (pid %d) signal: killed; starting it again in ", w.pids[1])
	_, after, ok := strings.Cut(log, said)
	delay, err := time.ParseDuration(strings.SplitN(after, "\n", 2)[0])
	if !ok || err != nil || delay > time.Second {
		t.Errorf("the parent did not say which worker died and that it starts again within a second:\n%s", log)
	}
	if again == w.pids[1] || syscall.Kill(again, 0) != nil {
		t.Errorf("worker 1/2 started again as pid %d (was %d), not running", again, w.pids[1])
	}
	if err := syscall.Kill(w.pids[0], 0); err != nil {
		t.Errorf("worker 0/2 (pid %d) did not go on: %v", w.pids[0], err)
	}
	// The new worker listens too: both hold the port before the parent
	// is asked to stop.
	deadline = time.Now().Add(20 * time.Second)
	for socketsOnPort(t, []int{again}, port)[again]["0A"] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("worker 1/2 (pid %d) holds no listener on port %d within 20s", again, port)
		}
		time.Sleep(20 * time.Millisecond) // polling /proc for the listener, not synchronising
	}
	for i := range 20 {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
			t.Fatalf("request %d after the restart: %q, %v", i, line, err)
		}
	}
	if err := w.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, w.log)
	}
	for _, pid := range []int{w.pids[0], again} {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("worker %d still runs after the parent returned", pid)
		}
	}
}

func TestServeWorkersRejectsBadSettings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workers", []string{"serve", "--workers", "0"}, "--workers must be at least 1, got 0"},
		{"negative workers", []string{"serve", "--workers", "-2"}, "--workers must be at least 1, got -2"},
		{"port 0", []string{"serve", "--workers", "2", "--addr", "127.0.0.1:0"}, "--workers needs a fixed port"},
		{"no port", []string{"serve", "--workers", "2", "--addr", "127.0.0.1"}, "missing port"},
		{"a debug listener", []string{"serve", "--workers", "2", "--addr", "127.0.0.1:8080", "--debug-addr", "127.0.0.1:0"}, "--debug-addr is per process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

func TestWorkerArgsKeepTheFlagsButWorkers(t *testing.T) {
	cmd := newServeCmd()
	if err := cmd.ParseFlags([]string{"--addr", "0.0.0.0:9000", "--workers", "4", "--delay", "2s", "--engine", "nethttp"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(workerArgs(cmd.Flags()), " ")
	if want := "serve --addr=0.0.0.0:9000 --delay=2s --engine=nethttp"; got != want {
		t.Errorf("worker args = %q, want %q", got, want)
	}
}
