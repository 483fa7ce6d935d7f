package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// gust runs the gust command line in-process and returns stdout, stderr
// and the error main would print.
func gust(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newRootCmd()
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return stdout.String(), stderr.String(), err
}

// wantOneLineError fails t unless err is an error of one line that
// mentions want: what every refused flag must give the user.
func wantOneLineError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one mentioning %q", err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q spans lines", err)
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown flag", []string{"load", "--bogus", refused}, "unknown flag: --bogus"},
		{"no URL", []string{"load"}, "need exactly one URL"},
		{"two URLs", []string{"load", refused, refused}, "need exactly one URL"},
		{"a URL without scheme", []string{"load", "127.0.0.1:8080"}, "missing scheme"},
		{"an ftp URL", []string{"load", "ftp://127.0.0.1/"}, "not supported"},
		{"a TLS version that is not 1.2 or 1.3", []string{"load", "--tls-min", "1.1", refused}, "--tls-min must be 1.2 or 1.3"},
		{"--cert without --key", []string{"load", "--cert", "c.pem", refused}, "--cert and --key go together"},
		{"a missing CA file", []string{"load", "--cacert", "/nonexistent/ca.pem", refused}, "--cacert"},
		{"zero connections", []string{"load", "-c", "0", refused}, "-c must be at least 1"},
		{"a duration without unit", []string{"load", "-z", "10", refused}, "missing unit"},
		{"both -q and --rate", []string{"load", "-q", "5", "--rate", "100", refused}, "not both"},
		{"both -d and -D", []string{"load", "-d", "x", "-D", "f", refused}, "not both"},
		{"a header without colon", []string{"load", "-H", "NoColon", refused}, "bad header"},
		{"a missing body file", []string{"load", "-D", "/nonexistent/body", refused}, "read body"},
		{"an unknown output", []string{"load", "-o", "xml", refused}, "-o must be"},
		{"a refused target", []string{"load", "-z", "1s", refused}, "connection refused"},
		{"a shard without a count", []string{"load", "--shard", "1", refused}, "--shard: bad shard \"1\": write it as I/N"},
		{"a shard past the count", []string{"load", "--shard", "4/4", refused}, "the index counts from 0, so it runs from 0 to 3"},
		{"fewer connections than shards", []string{"load", "--shard", "0/4", "-c", "2", refused}, "2 connections cannot be shared by 4 shards"},
		{"a start time that is not RFC 3339", []string{"load", "--start-at", "noon", refused}, "--start-at \"noon\" is not an RFC 3339 time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := gust(t, tt.args...)
			wantOneLineError(t, err, tt.want)
		})
	}
}

func TestLoadSendsWhatTheFlagsSay(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		got.Store(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("X-Test") + " " +
			r.Header.Get("Content-Type") + " " + body.String())
		w.Write([]byte("Hello, Go!"))
	}))
	defer srv.Close()
	bodyFile := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(bodyFile, []byte(`{"from":"file"}`), 0o644)

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"method, headers and body", []string{"-m", "post", "-H", "X-Test: yes", "-T", "application/json", "-d", `{"a":1}`}, `POST /p?q=1 yes application/json {"a":1}`},
		{"body from a file", []string{"-m", "PUT", "-D", bodyFile}, `PUT /p?q=1   {"from":"file"}`},
		{"-k is accepted", []string{"-k"}, "GET /p?q=1   "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"load", "-n", "20", "-c", "2", "-o", "json"}, tt.args...)
			stdout, _, err := gust(t, append(args, srv.URL+"/p?q=1")...)
			if err != nil {
				t.Fatal(err)
			}
			if g := got.Load(); g != tt.want {
				t.Errorf("server saw %q, want %q", g, tt.want)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout)
			}
			if res["requests"] != float64(20) {
				t.Errorf("requests = %v, want 20", res["requests"])
			}
		})
	}
}

func TestLoadQPSIsPerConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	stdout, _, err := gust(t, "load", "-q", "50", "-c", "4", "-z", "1s", "-o", "json", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Rate     float64 `json:"rate"`
		Requests int64   `json:"requests"`
	}
	json.Unmarshal([]byte(stdout), &res)
	if res.Rate != 200 || res.Requests < 180 || res.Requests > 201 {
		t.Errorf("rate %v requests %d, want 200/s in total and about 200 requests", res.Rate, res.Requests)
	}
}

func TestLoadWritesCSVHdrLogAndHTML(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	hlog := filepath.Join(t.TempDir(), "run.hlog")
	stdout, _, err := gust(t, "load", "-c", "2", "--rate", "100", "-z", "1500ms", "-o", "csv", "--hdr-log", hlog, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != "second,requests,errors,bytes_read,p50_us,p99_us" || len(lines) < 2 {
		t.Errorf("csv = %q, want a header and a row per second", stdout)
	}
	log, err := os.ReadFile(hlog)
	if err != nil || !strings.Contains(string(log), "HIST") {
		t.Errorf("hdr log %q (%v), want encoded interval histograms", log, err)
	}

	page, _, err := gust(t, "load", "-c", "2", "-n", "50", "-o", "html", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "50 responses") {
		t.Errorf("-o html = %.200q..., want a page reporting 50 responses", page)
	}
}

// TestLoadReportsWhenInterrupted sends a real SIGINT to this process while
// a long run is going: the run must stop and still print its report.
func TestLoadReportsWhenInterrupted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	time.AfterFunc(500*time.Millisecond, func() { syscall.Kill(os.Getpid(), syscall.SIGINT) })
	start := time.Now()
	stdout, _, err := gust(t, "load", "-c", "2", "-z", "1m", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run went on for %s after SIGINT", d)
	}
	if !strings.Contains(stdout, "(interrupted)") || !strings.Contains(stdout, "Latency") {
		t.Errorf("report = %q, want a full report marked interrupted", stdout)
	}
}
