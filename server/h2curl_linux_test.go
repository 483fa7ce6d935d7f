//go:build linux

package server

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestH2CWithCurl has curl (nghttp2 inside) talk h2c with prior knowledge
// to each API and mode, when curl is installed.
func TestH2CWithCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	for _, setup := range h2Setups {
		t.Run(setup.name, func(t *testing.T) {
			s := start(t, setup.handler(), Config{Mode: setup.mode, H2C: true})
			base := "http://" + s.Addr().String()
			for _, tt := range []struct {
				name string
				args []string
				want string
			}{
				{"GET", []string{base + "/"}, "hello"},
				{"POST", []string{"--data-binary", "@-", base + "/echo"}, "3 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
				{"HEAD", []string{"-I", base + "/"}, "HTTP/2 200"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					cmd := exec.Command(curl, append([]string{"-sS", "--http2-prior-knowledge", "--max-time", "10"}, tt.args...)...)
					cmd.Stdin = strings.NewReader("abc")
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					out, err := cmd.Output()
					if err != nil {
						t.Fatalf("curl: %v: %s", err, stderr.String())
					}
					if !strings.Contains(string(out), tt.want) {
						t.Errorf("curl printed %q, want %q in it", out, tt.want)
					}
				})
			}
		})
	}
}
