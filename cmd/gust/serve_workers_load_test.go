//go:build linux

package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
)

// TestServeWorkerKilledUnderLoad kills one of four workers with SIGKILL
// while gust load runs against them: only the connections that worker
// held see errors (at most one request each: one in flight per
// connection), the worker is started again within a second, and the run
// ends with every other request answered 200, its connections reopened on
// the others.
func TestServeWorkerKilledUnderLoad(t *testing.T) {
	port := freePort(t)
	w := startWorkers(t, "gust", 4, port)
	bg := startLoad(t, load.Config{
		URL: fmt.Sprintf("http://127.0.0.1:%d/", port), Connections: 40, Rate: 2000, Loops: 1,
		Duration: 60 * time.Second, Timeout: 5 * time.Second,
	})
	bg.moreAnswered(1000)
	victim := w.pids[2]
	held := socketsOnPort(t, []int{victim}, port)[victim]["01"]
	if held == 0 {
		t.Fatalf("worker 2/4 (pid %d) holds no connection of the load", victim)
	}
	killed := time.Now()
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(w.log.String(), "worker 2/4 started again") {
		if time.Now().After(deadline) {
			t.Fatalf("worker 2/4 was not started again:\n%s", w.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if back := time.Since(killed); back > 2*time.Second { // within a second, and the log's latency
		t.Errorf("worker 2/4 started again %v after it was killed", back)
	}
	bg.moreAnswered(2000)
	res := bg.stop()
	if n := res.ErrorCount(); n > int64(held) {
		t.Errorf("%d errors %v, but the killed worker held only %d connections", n, res.Errors, held)
	}
	for code, n := range res.Status {
		if code != 200 {
			t.Errorf("%d responses %d", n, code)
		}
	}
	t.Logf("worker held %d connections; %d errors %v; %d responses, %d retried, %d reconnects", held, res.ErrorCount(), res.Errors, res.Requests, res.Retried, res.Reconnects)
	if err := w.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, w.log)
	}
}
