//go:build linux

package server

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// h2specBin finds h2spec (github.com/summerwind/h2spec) on PATH or in
// GOPATH/bin, or skips the test.
func h2specBin(t *testing.T) string {
	if testing.Short() {
		t.Skip("h2spec takes a while: not in -short mode")
	}
	if bin, err := exec.LookPath("h2spec"); err == nil {
		return bin
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	bin := filepath.Join(gopath, "bin", "h2spec")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("h2spec is not installed: go install github.com/summerwind/h2spec/cmd/h2spec@latest")
	}
	return bin
}

// TestH2SpecAgainstTheServer runs every h2spec case (strict included)
// against gust/server in h2c and in h2 over TLS, for each API and mode,
// and fails on any failed case.
func TestH2SpecAgainstTheServer(t *testing.T) {
	bin := h2specBin(t)
	for _, setup := range h2Setups {
		for _, overTLS := range []bool{false, true} {
			name := setup.name + "/h2c"
			if overTLS {
				name = setup.name + "/h2 over TLS"
			}
			t.Run(name, func(t *testing.T) { runH2Spec(t, bin, setup.handler(), setup.mode, overTLS) })
		}
	}
}

// runH2Spec runs h2spec against a server with handler h in mode, in h2c
// or (overTLS) in h2 negotiated by ALPN.
func runH2Spec(t *testing.T, bin string, h Handler, mode Mode, overTLS bool) {
	cfg := Config{Mode: mode, H2C: true, ErrorLog: discardLog()}
	args := []string{"-h", "127.0.0.1", "-o", "2", "-S", "-j", filepath.Join(t.TempDir(), "report.xml")}
	if overTLS {
		cfg.TLS, cfg.HTTP2.OverTLS = serverTLS(), true
		args = append(args, "-t", "-k")
	}
	s := start(t, h, cfg)
	_, port, _ := net.SplitHostPort(s.Addr().String())
	{
		{
			out, err := exec.Command(bin, append(args, "-p", port)...).CombinedOutput()
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			summary := lines[len(lines)-1]
			t.Log(summary)
			if !strings.Contains(summary, " tests, ") {
				t.Fatalf("h2spec did not run: %v\n%s", err, out)
			}
			for _, l := range lines {
				if !strings.Contains(l, "×") {
					continue
				}
				t.Errorf("h2spec: %s", strings.TrimSpace(l))
			}
			if err != nil || !strings.Contains(summary, " 0 failed") {
				t.Errorf("h2spec: %v", err)
			}
		}
	}
}
