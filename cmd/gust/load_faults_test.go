package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain lets a test run the real gust command in a child process (the
// test binary itself, with runMainEnv set), to see its exit status.
const runMainEnv = "GUST_TEST_RUN_MAIN"

// gustProcess runs gust with args in a child process and returns its
// stdout, stderr and exit code; a run still going after limit fails the
// test.
func gustProcess(t *testing.T, limit time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gust %s still running after %s; stderr:\n%s", strings.Join(args, " "), time.Since(start), stderr.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	t.Fatalf("gust %s: %v", strings.Join(args, " "), err)
	return "", "", -1
}

// dyingTarget answers "ok" n times, then closes its listener and every
// connection, as a crashing server would.
func dyingTarget(t *testing.T, n int64) string {
	t.Helper()
	var served atomic.Int64
	var die sync.Once
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) > n {
			die.Do(func() {
				srv.Listener.Close()
				go srv.CloseClientConnections() // it waits for this handler
			})
			return
		}
		w.Write([]byte("ok"))
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestLoadAgainstATargetThatDies(t *testing.T) {
	const limit = 20 * time.Second // a run of 2s that does not end by then hangs
	t.Run("the text report is printed with the errors and gust exits 0", func(t *testing.T) {
		url := dyingTarget(t, 50)
		stdout, stderr, code := gustProcess(t, limit, "load", "-c", "4", "-z", "2s", "--timeout", "300ms", url)
		if code != 0 {
			t.Fatalf("exit status %d, want 0; stderr:\n%s", code, stderr)
		}
		for _, want := range []string{"Duration", "Requests", "Latency", "Errors      connect_refused: "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("report does not contain %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("the JSON report is printed with the errors and gust exits 0", func(t *testing.T) {
		url := dyingTarget(t, 50)
		stdout, stderr, code := gustProcess(t, limit, "load", "-c", "4", "--rate", "200", "-z", "2s", "--timeout", "300ms", "-o", "json", url)
		if code != 0 {
			t.Fatalf("exit status %d, want 0; stderr:\n%s", code, stderr)
		}
		var res struct {
			DurationS float64          `json:"duration_s"`
			Requests  int64            `json:"requests"`
			Errors    map[string]int64 `json:"errors"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout)
		}
		if res.DurationS < 2 || res.Requests == 0 || res.Errors["connect_refused"] == 0 {
			t.Errorf("duration %gs, %d requests, errors %v: want 2s, responses before the target died and connect_refused after",
				res.DurationS, res.Requests, res.Errors)
		}
	})
	t.Run("a target that is already gone is a one-line error and exit status 2", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		stdout, stderr, code := gustProcess(t, limit, "load", "-z", "1s", "--timeout", "300ms", url)
		if code != 2 || stdout != "" {
			t.Errorf("exit status %d, stdout %q: want 2 and no report", code, stdout)
		}
		if !strings.HasPrefix(stderr, "gust: load: cannot connect to") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("stderr %q, want one line saying it cannot connect", stderr)
		}
	})
}
