package http2

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestH2Spec runs h2spec (github.com/summerwind/h2spec) against the server
// engine over h2c on loopback when GUST_H2SPEC=1 and h2spec is on PATH or
// in ~/go/bin. It logs h2spec's summary and fails on any failed case.
func TestH2Spec(t *testing.T) {
	if os.Getenv("GUST_H2SPEC") != "1" {
		t.Skip("set GUST_H2SPEC=1 to run h2spec")
	}
	bin, err := exec.LookPath("h2spec")
	if err != nil {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, "go", "bin", "h2spec")
		if _, err := os.Stat(bin); err != nil {
			t.Skip("h2spec not installed")
		}
	}
	addr := serverUnderTest(t, ServerConfig{})
	_, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command(bin, "-h", "127.0.0.1", "-p", port, "-o", "2", "-S", "-j", filepath.Join(t.TempDir(), "report.xml")).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		if strings.Contains(l, "×") || strings.Contains(l, "Expected") || strings.Contains(l, "Actual") {
			t.Log(l)
		}
	}
	t.Log(lines[len(lines)-1])
	if err != nil {
		t.Fatalf("h2spec: %v", err)
	}
}
