package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gust-http/gust/load/flow"
	"go.yaml.in/yaml/v3"
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

// TestFlowFromHARBrowserShapes: what real browser HARs hold (Chromium's
// HTTP/2 headers in lower case with pseudo-headers, WebSockets, favicons
// typed "other", answers in base64, forms given as params) comes out as a
// flow that replays.
func TestFlowFromHARBrowserShapes(t *testing.T) {
	const login = `{"_resourceType":"fetch","request":{"method":"POST","url":"https://a/login","headers":[]},
		"response":{"status":200,"headers":[],"content":{"mimeType":"application/json","text":"{\"token\":\"t0k3n-abcdef+/=\"}"}}}`
	for _, tc := range []struct {
		name    string
		entries string // after login
		summary string
		want    []string // in the flow
		gone    []string // not in the flow
	}{
		{
			name: "HTTP/2 headers keep their meaning, not their case or pseudo-headers",
			entries: `{"_resourceType":"fetch","request":{"method":"GET","url":"https://a/items","headers":[
				{"name":":authority","value":"a"},{"name":":method","value":"GET"},{"name":":path","value":"/items"},
				{"name":":scheme","value":"https"},{"name":"authorization","value":"Bearer t0k3n-abcdef+/="},
				{"name":"x-api-version","value":"3"},{"name":"priority","value":"u=1, i"},{"name":"cookie","value":"sid=1"}]},
				"response":{"status":200}}`,
			summary: "2 steps from 2 requests (dropped: 0 static assets, 0 to other origins); 1 captures suggested",
			want:    []string{"Authorization: Bearer {{token}}", "X-Api-Version: \"3\""},
			gone:    []string{":authority", "authority", ":path", "scheme", "priority", "Priority", "sid=1", "Cookie"},
		},
		{
			name: "a query string sends the token escaped",
			entries: `{"_resourceType":"xhr","request":{"method":"GET","url":"https://a/items?limit=3&t=t0k3n-abcdef%2B%2F%3D","headers":[]},
				"response":{"status":200}}`,
			summary: "2 steps from 2 requests",
			want:    []string{"url: /items?limit=3&t={{token}}"},
		},
		{
			name: "a WebSocket is dropped by its resource type",
			entries: `{"_resourceType":"websocket","request":{"method":"GET","url":"https://a/live","headers":[]},"response":{"status":101}},
				{"_resourceType":"fetch","request":{"method":"GET","url":"https://a/items","headers":[]},"response":{"status":200}}`,
			summary: "2 steps from 3 requests (dropped: 0 static assets, 0 to other origins, 1 WebSockets); 0 captures suggested",
			gone:    []string{"/live"},
		},
		{
			name: "a WebSocket is dropped by its Upgrade header when the HAR has no resource types",
			entries: `{"request":{"method":"GET","url":"https://a/live","headers":[{"name":"Upgrade","value":"websocket"},
				{"name":"Connection","value":"Upgrade"}]},"response":{"status":0}},
				{"request":{"method":"GET","url":"https://a/items","headers":[{"name":"Upgrade","value":"h2c"}]},"response":{"status":200}}`,
			summary: "2 steps from 3 requests (dropped: 0 static assets, 0 to other origins, 1 WebSockets)",
			gone:    []string{"/live", "Upgrade", "h2c"},
		},
		{
			name: "a favicon typed other is a static asset, an API typed other is not",
			entries: `{"_resourceType":"other","request":{"method":"GET","url":"https://a/favicon.ico","headers":[]},"response":{"status":404}},
				{"_resourceType":"Other","request":{"method":"GET","url":"https://a/beacon","headers":[]},
				"response":{"status":200,"content":{"mimeType":"application/json"}}}`,
			summary: "2 steps from 3 requests (dropped: 1 static assets, 0 to other origins)",
			want:    []string{"url: /beacon"},
			gone:    []string{"favicon"},
		},
		{
			name: "a JSON answer in base64 is read for captures",
			entries: `{"_resourceType":"fetch","request":{"method":"GET","url":"https://a/me","headers":[{"name":"Authorization","value":"Bearer t0k3n-abcdef+/="}]},
				"response":{"status":200,"content":{"mimeType":"application/json; charset=utf-8","encoding":"base64","text":"eyJzZXNzaW9uIjoic2Vzcy0xMjM0NTY3OCJ9"}}},
				{"_resourceType":"fetch","request":{"method":"GET","url":"https://a/orders?s=sess-12345678","headers":[]},"response":{"status":200}}`,
			summary: "3 steps from 3 requests (dropped: 0 static assets, 0 to other origins); 2 captures suggested",
			want:    []string{"session:\n        json: session", "url: /orders?s={{session}}"},
		},
		{
			name: "a form given as params only is sent URL-encoded",
			entries: `{"_resourceType":"document","request":{"method":"POST","url":"https://a/profile","headers":[
				{"name":"Content-Type","value":"application/x-www-form-urlencoded"}],
				"postData":{"mimeType":"application/x-www-form-urlencoded","params":[{"name":"name","value":"Ada L"},{"name":"note","value":"a%26b"}]}},
				"response":{"status":303}}`,
			summary: "2 steps from 2 requests",
			want:    []string{"body: name=Ada+L&note=a%26b", "status: 303"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"log":{"entries":[` + login + "," + tc.entries + `]}}`
			fl, sum, err := convertHAR([]byte(doc), harOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			if err := enc.Encode(fl); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(sum.String(), tc.summary) {
				t.Errorf("summary %q, want %q", sum, tc.summary)
			}
			if _, err := flow.Compile(b.Bytes(), flow.Options{}); err != nil {
				t.Errorf("the flow does not compile: %v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the flow lacks %q:\n%s", w, out)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(out, g) {
					t.Errorf("the flow keeps %q:\n%s", g, out)
				}
			}
		})
	}
}
