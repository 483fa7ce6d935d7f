package load

import (
	"bufio"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// startAioquic starts testdata/aioquic_h3_server.py with args before its
// certificate and key, and returns its https:// URL. It skips without
// aioquic, except in CI, which installs it.
func startAioquic(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Python server")
	}
	if err := exec.Command("python3", "-c", "import aioquic").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI installs aioquic (pip install aioquic), but python3 cannot import it")
		}
		t.Skip("aioquic is not installed (pip install aioquic)")
	}
	dir := t.TempDir()
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)

	cmd := exec.Command("python3", append(append([]string{"testdata/aioquic_h3_server.py"}, args...), certFile, keyFile)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "listening" {
				port <- f[1]
			}
		}
	}()
	select {
	case p := <-port:
		return "https://127.0.0.1:" + p + "/"
	case <-time.After(30 * time.Second):
		t.Fatal("the aioquic server did not say it was listening within 30 s")
	}
	return ""
}

// gust load over HTTP/3 against aioquic, an independent QUIC and HTTP/3
// implementation (Python): GETs and POSTs with bodies, many streams in
// flight, every one answered. CI installs aioquic; elsewhere the test
// skips without it.
func TestHTTP3AgainstAioquic(t *testing.T) {
	url := startAioquic(t)
	for _, tc := range []struct {
		name      string
		cfg       Config
		keyUpdate string // GUST_QUIC_KEY_UPDATE for the run
		conns     int64  // the handshakes the run must make, if not 0
	}{
		{"GET, 4 connections of 16 streams", h3Config(url, 4, 16, 2000), "", 0},
		{"POST with a 4 KiB body", func() Config {
			c := h3Config(url, 2, 8, 500)
			c.Method, c.Body = "POST", []byte(strings.Repeat("p", 4096))
			return c
		}(), "", 0},
		{"keys updated every 32 packets", h3Config(url, 2, 8, 2000), "32", 0},
		// aioquic lets a client open 128 streams at once: 100 in flight
		// on one connection stay within its limit and its windows.
		{"100 streams in flight on one connection", func() Config {
			c := h3Config(url, 1, 100, 5000)
			c.Loops = 1
			return c
		}(), "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GUST_QUIC_KEY_UPDATE", tc.keyUpdate)
			res := run(t, tc.cfg)
			if res.Status[200] != tc.cfg.Requests || res.ErrorCount() != 0 {
				t.Errorf("status %v, errors %v, closes %v; want %d answered 200", res.Status, res.Errors, res.QUIC.Closes, tc.cfg.Requests)
			}
			if tc.conns > 0 && (res.QUIC.Handshakes() != tc.conns || res.Reconnects != 0 || len(res.QUIC.Closes) != 0) {
				t.Errorf("%d handshakes, %d reconnects, closes %v; want every request on %d connection(s) that never ended early",
					res.QUIC.Handshakes(), res.Reconnects, res.QUIC.Closes, tc.conns)
			}
		})
	}
}

// aioquic's GOAWAY after 50 answers on each connection: the requests it
// rejected unprocessed go out again on new connections, every request
// is answered once, and the report counts the connections the server's
// GOAWAY ended.
func TestHTTP3AioquicGoAway(t *testing.T) {
	url := startAioquic(t, "--goaway-after", "50")
	res := run(t, h3Config(url, 2, 16, 1000))
	t.Logf("status %v, errors %v, closes %v, handshakes %d, retried %d", res.Status, res.Errors, res.QUIC.Closes, res.QUIC.Handshakes(), res.Retried)
	if res.Status[200] != 1000 || res.ErrorCount() != 0 {
		t.Errorf("status %v, errors %v; want all 1000 answered", res.Status, res.Errors)
	}
	if res.QUIC.Handshakes() < 1000/50 {
		t.Errorf("%d handshakes; a server going away every 50 requests needs at least 20", res.QUIC.Handshakes())
	}
	checkGoAwaysCounted(t, res)
}

// aioquic asking every client for a Retry first: each connection follows
// it (the QUIC section counts the handshakes that did), and every
// request is answered.
func TestHTTP3AioquicRetry(t *testing.T) {
	url := startAioquic(t, "--retry")
	res := run(t, h3Config(url, 3, 8, 600))
	if res.Status[200] != 600 || res.ErrorCount() != 0 {
		t.Errorf("status %v, errors %v; want all 600 answered", res.Status, res.Errors)
	}
	if res.QUIC.Retried != res.QUIC.Handshakes() || res.QUIC.Retried < 3 {
		t.Errorf("%d handshakes after a Retry of %d; want every one of the 3 or more", res.QUIC.Retried, res.QUIC.Handshakes())
	}
}
