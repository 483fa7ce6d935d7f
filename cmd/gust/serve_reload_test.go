package main

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// TestServeReloadsItsCertificateOnSIGHUP: gust serve --tls-cert --tls-key
// reads the pair again on SIGHUP, so a new connection gets the renewed
// certificate; a pair that does not load leaves the one served so far.
func TestServeReloadsItsCertificateOnSIGHUP(t *testing.T) {
	for _, engine := range []string{"gust", "nethttp"} {
		t.Run(engine, func(t *testing.T) {
			certA, keyA := certPair(t)
			certB, keyB := certPair(t)
			dir := t.TempDir()
			cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
			copyFile(t, certA, cert)
			copyFile(t, keyA, key)
			lines, cancel, done := startServe(t, serveConfig{Addr: "127.0.0.1:0", Engine: engine, Mode: "pooled", TLS: serveTLSFlags{Cert: cert, Key: key}})
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("runServe: %v", err)
				}
			}()
			first := <-lines
			rest, ok := strings.CutPrefix(first, "gust serve: listening on https://")
			if !ok {
				t.Fatalf("start-up line %q", first)
			}
			addr := strings.Fields(rest)[0]
			_, fpA, _ := strings.Cut(<-lines, "SHA-256 fingerprint ")
			if got := servedFingerprint(t, addr); got != fpA {
				t.Fatalf("served %s, printed %s", got, fpA)
			}

			copyFile(t, certB, cert)
			copyFile(t, keyB, key)
			if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			line := waitLine(t, lines, "SIGHUP")
			_, fpB, ok := strings.Cut(line, "SHA-256 fingerprint ")
			if !ok || !strings.Contains(line, "now serving") || fpB == fpA {
				t.Fatalf("after SIGHUP: %q, want the new certificate served", line)
			}
			if got := servedFingerprint(t, addr); got != fpB {
				t.Fatalf("after SIGHUP served %s, want the new %s", got, fpB)
			}

			if err := os.WriteFile(key, []byte("not a key"), 0o600); err != nil {
				t.Fatal(err)
			}
			syscall.Kill(os.Getpid(), syscall.SIGHUP)
			if line := waitLine(t, lines, "SIGHUP"); !strings.Contains(line, "keeping the certificate served so far") {
				t.Fatalf("a broken pair: %q, want the old certificate kept", line)
			}
			if got := servedFingerprint(t, addr); got != fpB {
				t.Fatalf("after a broken pair served %s, want still %s", got, fpB)
			}
		})
	}
}

// certPair writes a new self-signed pair and returns its files.
func certPair(t *testing.T) (cert, key string) {
	t.Helper()
	files, _, err := selfSignedForWorkers([]string{"--tls-self-signed"}, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(files[0], "--tls-cert="), strings.TrimPrefix(files[1], "--tls-key=")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// servedFingerprint handshakes with addr and returns the certificate's
// fingerprint.
func servedFingerprint(t *testing.T, addr string) string {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return transport.Fingerprint(c.ConnectionState().PeerCertificates[0].Raw)
}

// waitLine returns the next line of lines that contains want, failing at a
// deadline.
func waitLine(t *testing.T, lines <-chan string, want string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("gust serve stopped before a line with %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line with %q within 10s", want)
		}
	}
}
