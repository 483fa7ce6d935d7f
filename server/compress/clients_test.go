package compress

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os/exec"
	"strings"
	"testing"

	"github.com/gust-http/gust/server"
)

// clientServers are the three ways to serve the table to real clients.
func clientServers(t *testing.T) map[string]string {
	z := New(Config{})
	return map[string]string{
		"native":  startGust(t, z.Handler(nativeCases), server.Auto),
		"adapter": startGust(t, server.HTTPHandler(z.Middleware(netCases)), server.Auto),
		"nethttp": startNetHTTP(t, z.Middleware(netCases)),
	}
}

// TestCurlDecodes fetches /json with curl --compressed, each coding
// asked for alone and curl's own Accept-Encoding, and compares what curl
// decoded with the body.
func TestCurlDecodes(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed; .ci/run installs it when CI=true")
	}
	for name, base := range clientServers(t) {
		for _, accept := range []string{"", "gzip", "br", "zstd"} {
			args := []string{"-s", "--compressed", "-D", "/dev/stderr", "--max-time", "10"}
			if accept != "" {
				args = append(args, "-H", "Accept-Encoding: "+accept)
			}
			cmd := exec.Command(curl, append(args, base+"/json")...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				if strings.Contains(stderr.String(), "not support") {
					t.Logf("%s %q: this curl cannot decode it: %s", name, accept, stderr.String())
					continue
				}
				t.Fatalf("%s %q: curl: %v: %s", name, accept, err, stderr.String())
			}
			head := strings.ToLower(stderr.String())
			want := accept
			if want == "" {
				want = Negotiate(curlAccept(t, curl), DefaultOrder).String()
			}
			if !strings.Contains(head, "content-encoding: "+want+"\r\n") {
				t.Errorf("%s %q: no Content-Encoding %s in\n%s", name, accept, want, head)
			}
			if !bytes.Equal(out, bigJSON) {
				t.Errorf("%s %q: curl decoded %d bytes, want the %d of the body", name, accept, len(out), len(bigJSON))
			}
		}
	}
}

// curlAccept is the Accept-Encoding curl --compressed sends: the codings
// its libcurl was built with.
func curlAccept(t *testing.T, curl string) []byte {
	out, _ := exec.Command(curl, "--version").Output()
	accept := "deflate, gzip"
	if bytes.Contains(out, []byte("brotli/")) {
		accept += ", br"
	}
	if bytes.Contains(out, []byte("zstd/")) {
		accept += ", zstd"
	}
	return []byte(accept)
}

// pyScript fetches argv[1] with requests, Accept-Encoding argv[2], and
// prints the Content-Encoding, the decoded length and its SHA-256.
const pyScript = `
import hashlib, sys, requests
r = requests.get(sys.argv[1], headers={"Accept-Encoding": sys.argv[2]}, timeout=10)
print(r.headers.get("Content-Encoding", ""), len(r.content), hashlib.sha256(r.content).hexdigest())
`

// TestPythonRequestsDecodes fetches /json with Python requests, which
// decodes gzip always and br when the brotli module is installed.
func TestPythonRequestsDecodes(t *testing.T) {
	if exec.Command("python3", "-c", "import requests").Run() != nil {
		t.Skip("python3 with requests not installed; .ci/run installs it when CI=true")
	}
	codings := []string{"gzip"}
	if exec.Command("python3", "-c", "import brotli").Run() == nil {
		codings = append(codings, "br")
	} else {
		t.Log("python3 has no brotli module: br not tried (.ci/run installs it when CI=true)")
	}
	sum := sha256.Sum256(bigJSON)
	for name, base := range clientServers(t) {
		for _, coding := range codings {
			out, err := exec.Command("python3", "-c", pyScript, base+"/json", coding).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: python3: %v: %s", name, coding, err, out)
			}
			f := strings.Fields(string(out))
			if len(f) != 3 || f[0] != coding || f[2] != hex.EncodeToString(sum[:]) {
				t.Errorf("%s %s: requests saw %q, want %s, %d bytes, sha256 %x", name, coding, out, coding, len(bigJSON), sum)
			}
		}
	}
}
