package lab

import (
	"strings"
	"testing"
	"time"
)

func TestParseH2load(t *testing.T) {
	for _, tc := range []struct {
		file          string
		rps           float64
		requests      int64
		duration      time.Duration
		wantErrSubstr string
	}{
		{file: "h2load_nginx_h2c.txt", rps: 16458, requests: 16458, duration: time.Second},
		{file: "h2load_nginx_h2.txt", rps: 11440, requests: 11440, duration: time.Second},
		{file: "h2load_nethttp_h2.txt", rps: 5578, requests: 5578, duration: time.Second},
		// Two seconds of run, one of them --warm-up-time: the measured second counts.
		{file: "h2load_nethttp_h2c.txt", rps: 8048, requests: 8048, duration: time.Second},
		{file: "h2load_not_h2.txt", wantErrSubstr: "does the server speak HTTP/2"},
		{file: "h2load_refused.txt", wantErrSubstr: "is the server up"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			lr, err := ParseH2load(readTestdata(t, tc.file))
			if tc.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrSubstr) {
					t.Fatalf("error %v, want %q", err, tc.wantErrSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if lr.RPS != tc.rps || lr.Requests != tc.requests || lr.Duration != tc.duration || lr.Errors != 0 {
				t.Errorf("rps %v requests %d duration %s errors %d, want %v %d %s 0", lr.RPS, lr.Requests, lr.Duration, lr.Errors, tc.rps, tc.requests, tc.duration)
			}
			if lr.P50 != -1 || lr.P99 != -1 || lr.P999 != -1 {
				t.Errorf("h2load has no percentiles, got p50 %v p99 %v p999 %v", lr.P50, lr.P99, lr.P999)
			}
		})
	}
	t.Run("failed requests are errors", func(t *testing.T) {
		out := strings.Replace(readTestdata(t, "h2load_nginx_h2c.txt"),
			"16458 succeeded, 0 failed", "16400 succeeded, 58 failed", 1)
		lr, err := ParseH2load(out)
		if err != nil {
			t.Fatal(err)
		}
		if lr.Requests != 16400 || lr.Errors != 58 {
			t.Errorf("requests %d errors %d, want 16400 and 58", lr.Requests, lr.Errors)
		}
	})
	t.Run("HTTP/1.1 chosen by ALPN is an error", func(t *testing.T) {
		out := strings.Replace(readTestdata(t, "h2load_nginx_h2.txt"), "Application protocol: h2", "Application protocol: http/1.1", 1)
		if _, err := ParseH2load(out); err == nil || !strings.Contains(err.Error(), "not HTTP/2") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("output without a summary is an error", func(t *testing.T) {
		if _, err := ParseH2load("invalid URI: x\n"); err == nil || !strings.Contains(err.Error(), "invalid URI") {
			t.Errorf("error %v", err)
		}
	})
}

func TestH2loadArgs(t *testing.T) {
	sc := Scenario{Name: "x", Connections: 1000, HTTP2: &HTTP2{Streams: 100}, Duration: Duration(1500 * time.Millisecond), Warmup: Duration(2 * time.Second)}
	got := strings.Join(h2loadArgs("http://127.0.0.1:1/", sc), " ")
	for _, want := range []string{"-c 1000", "-m 100", "-D 2", "--warm-up-time 2000ms", "http://127.0.0.1:1/"} {
		if !strings.Contains(got, want) {
			t.Errorf("args %q lack %q", got, want)
		}
	}
}
