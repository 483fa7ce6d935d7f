//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
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
	var answered atomic.Int64
	cfg := load.Config{
		URL: fmt.Sprintf("http://127.0.0.1:%d/", port), Connections: 40, Rate: 2000, Loops: 1,
		Duration: 60 * time.Second, Timeout: 5 * time.Second,
		Progress: func(p load.Progress) { answered.Store(p.Requests) },
	}
	moreAnswered := func(n int64) {
		t.Helper()
		from := answered.Load()
		deadline := time.Now().Add(20 * time.Second)
		for answered.Load() < from+n {
			if time.Now().After(deadline) {
				t.Fatalf("fewer than %d responses in 20s", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res *result.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := load.Run(ctx, cfg)
		done <- outcome{res, err}
	}()
	moreAnswered(1000)
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
	moreAnswered(2000)
	cancel()
	out := <-done
	if out.err != nil {
		t.Fatal(out.err)
	}
	res := out.res
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
