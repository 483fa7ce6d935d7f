//go:build linux

package transport

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDirectRecordsAgainstOpenSSL serves OpenSSL's s_client, a TLS stack
// that is not Go's: each TLS 1.3 suite, and its key updates ("K" asks for
// one back, "k" does not). The AES-GCM suites are served by direct13, the
// ChaCha20 one stays with crypto/tls's record layer.
func TestDirectRecordsAgainstOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	ln := newListener(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: getPKI(t).ca.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		suite  string
		direct bool
	}{
		{"TLS_AES_128_GCM_SHA256", true},
		{"TLS_AES_256_GCM_SHA384", true},
		{"TLS_CHACHA20_POLY1305_SHA256", false},
	} {
		t.Run(tc.suite, func(t *testing.T) {
			cmd := exec.Command("openssl", "s_client", "-connect", fmt.Sprintf("127.0.0.1:%d", ln.port),
				"-tls1_3", "-ciphersuites", tc.suite, "-CAfile", ca, "-servername", "localhost", "-verify_return_error")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			fd := acceptRaw(t, ln)
			s := NewServerTLS(NewPlain(fd), serverConfig(t, tls.VersionTLS13))
			defer s.Release()
			if err := <-handshake(s, 10*time.Second); err != nil {
				t.Fatalf("handshake: %v\n%s", err, out)
			}
			if got := tls.CipherSuiteName(s.CipherSuite()); got != tc.suite {
				t.Fatalf("suite %s, want %s", got, tc.suite)
			}
			if (s.d != nil) != tc.direct {
				t.Fatalf("direct records: %v, want %v", s.d != nil, tc.direct)
			}
			// s_client drops what stdin says before its handshake is done;
			// it prints its summary, this line near its end, once it is.
			waitFor(t, out, "Verify return code")
			for i, cmdLetter := range []string{"", "K\n", "k\n", "K\n"} {
				if cmdLetter != "" {
					// s_client drops the rest of a read that starts with a command.
					before := strings.Count(out.String(), "KEYUPDATE")
					io.WriteString(stdin, cmdLetter)
					waitForCount(t, out, "KEYUPDATE", before+1)
				}
				want := fmt.Sprintf("ping-%d\n", i)
				io.WriteString(stdin, want)
				if got := readN(t, s, make([]byte, 64), len(want)); string(got) != want {
					t.Fatalf("read %q, want %q\n%s", got, want, out)
				}
				pong := fmt.Sprintf("pong-%d", i)
				writeAll(t, s, []byte(pong+"\n"))
				waitFor(t, out, pong)
			}
			if n := strings.Count(out.String(), "KEYUPDATE"); n != 3 {
				t.Fatalf("s_client sent %d key updates, want 3\n%s", n, out)
			}
			stdin.Close() // s_client sends close_notify and exits
			buf := make([]byte, 64)
			for {
				_, err := s.Read(buf)
				if err == ErrWouldBlock {
					waitFD(t, fd, unix.POLLIN)
					continue
				}
				if err != io.EOF {
					t.Fatalf("after s_client's close: %v, want io.EOF\n%s", err, out)
				}
				break
			}
			cmd.Wait()
		})
	}
}

// acceptRaw accepts a connection on ln and returns its socket as a
// non-blocking descriptor of its own, closed at cleanup.
func acceptRaw(t *testing.T, ln *listener) int {
	t.Helper()
	ln.ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	c, err := ln.ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.(*net.TCPConn).File()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(fd, true)
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// waitFor waits up to 10 s for s in out.
func waitFor(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	waitForCount(t, out, s, 1)
}

// waitForCount waits up to 10 s for n times s in out.
func waitForCount(t *testing.T, out *syncBuffer, s string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Count(out.String(), s) >= n {
			return
		}
	}
	t.Fatalf("s_client never printed %q %d times:\n%s", s, n, out)
}

// syncBuffer is a bytes.Buffer for a process's output read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestDirectClientAgainstOpenSSL makes our client's requests to OpenSSL's
// s_server, which sends two session tickets after the handshake: the client
// hands its records over after storing the first, lets the second go, and
// its next connection resumes.
func TestDirectClientAgainstOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	leaf := getPKI(t).leaf
	keyDER, err := x509.MarshalPKCS8PrivateKey(leaf.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Certificate[0]}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	probe := newListener(t)
	port := probe.port
	probe.ln.Close()
	srv := exec.Command("openssl", "s_server", "-accept", fmt.Sprintf("127.0.0.1:%d", port), "-cert", cert, "-key", key, "-tls1_3", "-www")
	out := &syncBuffer{}
	srv.Stdout, srv.Stderr = out, out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	waitFor(t, out, "ACCEPT")
	cfg := clientConfig(t, tls.VersionTLS13)
	cfg.NextProtos = nil
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	for i, wantResumed := range []bool{false, true} {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
		unix.SetNonblock(fd, true)
		c := NewClientTLS(NewPlain(fd), cfg)
		if err := <-handshake(c, 10*time.Second); err != nil {
			t.Fatalf("connection %d: %v\n%s", i, err, out)
		}
		if c.DidResume() != wantResumed {
			t.Fatalf("connection %d: resumed %v, want %v", i, c.DidResume(), wantResumed)
		}
		writeAll(t, c, []byte("GET / HTTP/1.0\r\n\r\n"))
		var resp []byte
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			resp = append(resp, buf[:n]...)
			if err == ErrWouldBlock {
				waitFD(t, fd, unix.POLLIN)
				continue
			}
			if err != nil {
				break
			}
		}
		if !bytes.HasPrefix(resp, []byte("HTTP/1.0 200 ok")) || !bytes.Contains(resp, []byte("</HTML>")) {
			t.Fatalf("connection %d: response %.200q", i, resp)
		}
		if c.d == nil {
			t.Fatalf("connection %d: the client kept crypto/tls's records", i)
		}
		c.Release()
		unix.Close(fd)
	}
}
