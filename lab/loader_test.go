package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseWrk(t *testing.T) {
	lr, err := ParseWrk(readTestdata(t, "wrk.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if lr.RPS != 93119.21 || lr.Requests != 186389 || lr.Duration != 2*time.Second {
		t.Errorf("rps %v requests %d duration %s", lr.RPS, lr.Requests, lr.Duration)
	}
	if lr.P50 != 431 || lr.P99 != 707 || lr.P999 != -1 || lr.Errors != 0 {
		t.Errorf("p50 %v p99 %v p999 %v errors %d", lr.P50, lr.P99, lr.P999, lr.Errors)
	}

	t.Run("errors are socket errors plus non-2xx responses", func(t *testing.T) {
		out := strings.Replace(readTestdata(t, "wrk.txt"), "Requests/sec:",
			"  Socket errors: connect 3, read 4, write 0, timeout 5\n  Non-2xx or 3xx responses: 7\nRequests/sec:", 1)
		lr, err := ParseWrk(out)
		if err != nil || lr.Errors != 19 {
			t.Errorf("errors %d, err %v; want 19", lr.Errors, err)
		}
	})
	t.Run("a refused connection is an error that quotes wrk", func(t *testing.T) {
		_, err := ParseWrk(readTestdata(t, "wrk_refused.txt"))
		if err == nil || !strings.Contains(err.Error(), "unable to connect") {
			t.Errorf("err %v", err)
		}
	})
}

func TestParseHey(t *testing.T) {
	lr, err := ParseHey(readTestdata(t, "hey.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if lr.Requests != 55696 || lr.Errors != 0 || lr.P50 != 1800 || lr.P99 != 4400 || lr.P999 != -1 {
		t.Errorf("requests %d errors %d p50 %v p99 %v p999 %v", lr.Requests, lr.Errors, lr.P50, lr.P99, lr.P999)
	}
	if want := 55696 / 2.0068; lr.RPS < want-0.01 || lr.RPS > want+0.01 {
		t.Errorf("rps %v, want %v", lr.RPS, want)
	}

	t.Run("refused connections are errors, not requests", func(t *testing.T) {
		lr, err := ParseHey(readTestdata(t, "hey_refused.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if lr.Requests != 0 || lr.RPS != 0 || lr.Errors != 30659 || lr.P50 != -1 {
			t.Errorf("requests %d rps %v errors %d p50 %v", lr.Requests, lr.RPS, lr.Errors, lr.P50)
		}
	})
}

func TestParseAb(t *testing.T) {
	lr, err := ParseAb(readTestdata(t, "ab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if lr.Requests != 198291 || lr.Errors != 0 || lr.Duration != 2*time.Second || lr.P50 != 0 || lr.P99 != 4000 || lr.P999 != -1 {
		t.Errorf("requests %d errors %d duration %s p50 %v p99 %v p999 %v", lr.Requests, lr.Errors, lr.Duration, lr.P50, lr.P99, lr.P999)
	}
	if lr.RPS != 198291/2.0 {
		t.Errorf("rps %v, want %v", lr.RPS, 198291/2.0)
	}
	t.Run("non-2xx responses are errors", func(t *testing.T) {
		out := strings.Replace(readTestdata(t, "ab.txt"), "Keep-Alive requests:", "Non-2xx responses:      91\nKeep-Alive requests:", 1)
		lr, err := ParseAb(out)
		if err != nil || lr.Errors != 91 || lr.Requests != 198291-91 {
			t.Errorf("errors %d requests %d, err %v", lr.Errors, lr.Requests, err)
		}
	})
	t.Run("refused connections are errors, not requests", func(t *testing.T) {
		lr, err := ParseAb(readTestdata(t, "ab_refused.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if lr.Requests != 0 || lr.RPS != 0 || lr.Errors != 150 {
			t.Errorf("requests %d rps %v errors %d", lr.Requests, lr.RPS, lr.Errors)
		}
	})
	t.Run("output without results is an error", func(t *testing.T) {
		if _, err := ParseAb("ab: invalid URL\n"); err == nil || !strings.Contains(err.Error(), "invalid URL") {
			t.Errorf("err %v", err)
		}
	})
}

func TestNewLoader(t *testing.T) {
	if _, err := NewLoader("siege"); err == nil || !strings.Contains(err.Error(), "unknown loader") {
		t.Errorf("siege: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"wrk", "hey", "ab", "h2load"} {
		if _, err := NewLoader(name); err == nil || !strings.Contains(err.Error(), "not installed") {
			t.Errorf("%s without PATH: %v", name, err)
		}
	}
	if l, err := NewLoader("gust"); err != nil || l.Name() != "gust" {
		t.Errorf("gust: %v %v", l, err)
	}
}
