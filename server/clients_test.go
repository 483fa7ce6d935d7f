//go:build linux

package server

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// uploadSize is larger than anything a server drains or buffers by chance:
// a handler that does not read it leaves most of it unread.
const uploadSize = 2_000_000

// realClient is a program nobody here wrote, driven by a script in
// testdata/clients: it uploads a body the handler ignores, then sends
// another request, and fails on a reset, a broken pipe or a retry.
type realClient struct {
	name string
	need []string // programs, then for Python the modules it imports
	args func(url string, status int) []string
}

var realClients = []realClient{
	{name: "python", need: []string{"python3", "requests", "httpx", "aiohttp"}, args: func(url string, status int) []string {
		return []string{"python3", "testdata/clients/py_clients.py", url, fmt.Sprint(uploadSize), fmt.Sprint(status)}
	}},
	{name: "node", need: []string{"node"}, args: func(url string, status int) []string {
		return []string{"node", "testdata/clients/node_clients.mjs", url, fmt.Sprint(uploadSize), fmt.Sprint(status)}
	}},
	{name: "curl", need: []string{"curl"}, args: func(url string, status int) []string {
		// curl sends Expect: 100-continue for a body this large; --next
		// sends a GET on the same connection if the first allows it.
		return []string{"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}\n",
			"--data-binary", "@" + uploadFile, url, "--next", "-sS", "-o", "/dev/null", "-w", "%{http_code}\n", url + "second"}
	}},
}

var uploadFile = filepath.Join(os.TempDir(), "gust-clients-upload")

// ignoreBody answers without reading the request body, as a handler that
// rejects an upload early does.
func ignoreBody(c *Ctx) { c.SetContentType("text/plain"); c.WriteString("Hello, Go!") }

func ignoreBodyHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Write([]byte("Hello, Go!"))
}

// TestRealClientsGetTheWholeResponseWhenTheBodyIsNotRead is RFC 9112
// section 9.6's staged close, judged by real clients: an upload the handler
// does not read (or one over MaxBodyBytes) gets its response whole and the
// connection closed gracefully, so the client reads the response instead of a
// reset, for every API and mode.
func TestRealClientsGetTheWholeResponseWhenTheBodyIsNotRead(t *testing.T) {
	if err := os.WriteFile(uploadFile, []byte(strings.Repeat("x", uploadSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	servers := []struct {
		name   string
		h      Handler
		cfg    Config
		status int
	}{
		{"native/auto", HandlerFunc(ignoreBody), Config{Mode: Auto}, 200},
		{"native/pooled", HandlerFunc(ignoreBody), Config{Mode: Pooled}, 200},
		{"native/inline", HandlerFunc(ignoreBody), Config{Mode: Inline}, 200},
		{"native/over MaxBodyBytes", HandlerFunc(ignoreBody), Config{Mode: Auto, MaxBodyBytes: 64 << 10}, 413},
		{"nethttp/auto", HTTPHandler(http.HandlerFunc(ignoreBodyHTTP)), Config{Mode: Auto}, 200},
		{"nethttp/pooled", HTTPHandler(http.HandlerFunc(ignoreBodyHTTP)), Config{Mode: Pooled}, 200},
	}
	for _, srv := range servers {
		s := start(t, srv.h, srv.cfg)
		url := "http://" + s.Addr().String() + "/"
		for _, c := range realClients {
			t.Run(srv.name+"/"+c.name, func(t *testing.T) {
				needClient(t, c.need)
				args := c.args(url, srv.status)
				cmd := exec.Command(args[0], args[1:]...)
				timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
				defer timer.Stop()
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args[:2], " "), err, out)
				}
				if c.name == "curl" {
					want := fmt.Sprintf("%d\n200\n", srv.status)
					if string(out) != want {
						t.Fatalf("curl printed %q, want %q", out, want)
					}
				}
				t.Logf("%s", out)
			})
		}
	}
}

// needClient skips when a client is missing here, but not in CI, which
// installs them all (.ci/run).
func needClient(t *testing.T, programs []string) {
	t.Helper()
	for i, p := range programs {
		var err error
		if i == 0 {
			_, err = exec.LookPath(p)
		} else {
			err = exec.Command(programs[0], "-c", "import "+p).Run()
		}
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing; .ci/run installs it", p)
			}
			t.Skipf("%s is not installed", p)
		}
	}
}
