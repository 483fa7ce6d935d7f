package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gust-http/gust/load/flow"
)

// runFromHAR runs gust flow from-har with args and returns its output and
// error.
func runFromHAR(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newFlowCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"from-har"}, args...))
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// TestFlowFromHAR turns a HAR recorded from a login page into a flow: the
// page's own requests in order, static assets and another origin dropped,
// browser headers and cookies trimmed, the token and user id the login
// answered captured and sent back as variables; the flow compiles, and
// matches testdata/login.flow.yaml (rewritten under -update-golden).
func TestFlowFromHAR(t *testing.T) {
	out, summary, err := runFromHAR(t, "testdata/login.har")
	if err != nil {
		t.Fatal(err)
	}
	if want := "4 steps from 8 requests (dropped: 3 static assets, 1 to other origins); 2 captures suggested"; !strings.Contains(summary, want) {
		t.Errorf("summary %q, want %q", summary, want)
	}
	if _, err := flow.Compile([]byte(out), flow.Options{File: "login.flow.yaml"}); err != nil {
		t.Fatalf("the flow does not compile: %v\n%s", err, out)
	}
	for _, want := range []string{
		"capture:\n      id:\n        json: user.id\n      token:\n        json: token",
		"url: /items?session={{token}}",
		"Authorization: Bearer {{token}}",
		"url: /users/{{id}}/orders",
		`body: '{"user":"u1001"}'`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the flow lacks %q:\n%s", want, out)
		}
	}
	for _, gone := range []string{"app.js", "style.css", "cdn.example.net", "logo.png", "Mozilla", "sec-ch-ua", "seen=1", "s3cr3t", ":authority", "Content-Length", "Origin", "think:"} {
		if strings.Contains(out, gone) {
			t.Errorf("the flow keeps %q:\n%s", gone, out)
		}
	}
	golden := filepath.Join("testdata", "login.flow.yaml")
	if os.Getenv("GUST_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("the flow differs from %s (GUST_UPDATE_GOLDEN=1 rewrites it):\n%s", golden, out)
	}
}

func TestFlowFromHAROptions(t *testing.T) {
	out, summary, err := runFromHAR(t, "testdata/login.har", "--keep-static", "--think")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary, "7 steps from 8 requests (dropped: 0 static assets, 1 to other origins)") {
		t.Errorf("--keep-static: %q", summary)
	}
	for _, want := range []string{"url: /app.js", "url: /logo.png", "think: 8ms", "think: 492ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("--keep-static --think: the flow lacks %q:\n%s", want, out)
		}
	}
	if _, err := flow.Compile([]byte(out), flow.Options{}); err != nil {
		t.Errorf("--keep-static --think: the flow does not compile: %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "out.yaml")
	if _, _, err := runFromHAR(t, "testdata/login.har", "-o", file); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "url: /login") {
		t.Errorf("-o wrote %q, %v", b, err)
	}
}

// TestFlowFromHARRefusesBadInput: each bad HAR gets one line saying what
// is wrong, never a panic or an empty flow.
func TestFlowFromHARRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body string
		args       []string
		want       string
	}{
		{"not JSON", "GET / HTTP/1.1", nil, "not a HAR file"},
		{"no entries", `{"log":{"entries":[]}}`, nil, "no requests in log.entries"},
		{"a relative URL", `{"log":{"entries":[{"request":{"method":"GET","url":"/x"}}]}}`, nil, `entry 1: request.url "/x" is not an absolute URL`},
		{"no method", `{"log":{"entries":[{"request":{"url":"http://a/x"}}]}}`, nil, "entry 1: request.method is empty"},
		{"only static", `{"log":{"entries":[{"_resourceType":"image","request":{"method":"GET","url":"http://a/x.png"}}]}}`, nil, "no request to http://a is left"},
		{"another origin", `{"log":{"entries":[{"request":{"method":"GET","url":"http://a/x"}}]}}`, []string{"--origin", "http://b"}, "no request to http://b is left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "_")+".har", tc.body)
			out, _, err := runFromHAR(t, append([]string{p}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
			if out != "" {
				t.Errorf("wrote a flow anyway:\n%s", out)
			}
		})
	}
	if _, _, err := runFromHAR(t, filepath.Join(dir, "missing.har")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}
