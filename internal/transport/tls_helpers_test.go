//go:build linux

package transport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testPKI is a CA and a leaf it signed for localhost and 127.0.0.1.
type testPKI struct {
	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
	pool  *x509.CertPool
	leaf  tls.Certificate
}

var (
	pkiOnce sync.Once
	pki     testPKI
)

// certSpec describes a certificate issueCert makes.
type certSpec struct {
	cn        string
	dns       []string
	ips       []net.IP
	notBefore time.Time
	notAfter  time.Time
	isCA      bool
}

// issueCert makes a certificate for spec, signed by parent (self-signed when nil).
func issueCert(t testing.TB, spec certSpec, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if spec.notBefore.IsZero() {
		spec.notBefore = time.Now().Add(-time.Hour)
	}
	if spec.notAfter.IsZero() {
		spec.notAfter = time.Now().Add(time.Hour)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: spec.cn},
		NotBefore: spec.notBefore, NotAfter: spec.notAfter,
		DNSNames: spec.dns, IPAddresses: spec.ips,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true, IsCA: spec.isCA,
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}
}

func getPKI(t testing.TB) *testPKI {
	pkiOnce.Do(func() {
		ca, caKey, _ := issueCert(t, certSpec{cn: "gust test CA", isCA: true, notAfter: time.Now().Add(24 * time.Hour)}, nil, nil)
		_, _, leaf := issueCert(t, certSpec{cn: "localhost", dns: []string{"localhost"}, ips: []net.IP{net.IPv4(127, 0, 0, 1)},
			notAfter: time.Now().Add(24 * time.Hour)}, ca, caKey)
		pki = testPKI{ca: ca, caKey: caKey, pool: x509.NewCertPool(), leaf: leaf}
		pki.pool.AddCert(ca)
	})
	return &pki
}

// serverConfig is prepared as a server's is (PrepareServerConfig): TLS 1.3
// connections hand their records over to direct13 after the handshake.
func serverConfig(t testing.TB, version uint16) *tls.Config {
	return PrepareServerConfig(cryptoTLSServerConfig(t, version))
}

// cryptoTLSServerConfig is not prepared: crypto/tls keeps the records.
func cryptoTLSServerConfig(t testing.TB, version uint16) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{getPKI(t).leaf},
		MinVersion:   version, MaxVersion: version,
		NextProtos: []string{"h2", "http/1.1"},
	}
}

func clientConfig(t testing.TB, version uint16) *tls.Config {
	return &tls.Config{
		RootCAs: getPKI(t).pool, ServerName: "localhost",
		MinVersion: version, MaxVersion: version,
		NextProtos: []string{"http/1.1"},
	}
}

// listener accepts loopback TCP connections for raw sockets.
type listener struct {
	ln   net.Listener
	port int
}

func newListener(t testing.TB) *listener {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return &listener{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
}

// pair returns a non-blocking raw socket, closed at cleanup, and the
// net.Conn at its other end.
func (l *listener) pair(t testing.TB) (int, net.Conn) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: l.port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(fd, true)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	t.Cleanup(func() { unix.Close(fd) })
	peer, err := l.ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return fd, peer
}

// rawPair returns two connected non-blocking raw sockets, closed at cleanup.
func (l *listener) rawPair(t testing.TB) (int, int) {
	t.Helper()
	fd, peer := l.pair(t)
	f, err := peer.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	peer.Close()
	// File dups; keep our own dup so the os.File can go.
	other, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(other, true)
	unix.SetsockoptInt(other, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	t.Cleanup(func() { unix.Close(other) })
	return fd, other
}

// handshake runs c's handshake and waits for its callback.
func handshake(c *TLS, timeout time.Duration) <-chan error {
	ch := make(chan error, 1)
	err := c.Handshake(time.Now().Add(timeout), func(c *TLS) {
		done, err := c.HandshakeDone()
		if !done {
			err = errors.New("callback before HandshakeDone")
		}
		ch <- err
	})
	if err != nil {
		ch <- err
	}
	return ch
}

// waitFD waits until fd is ready for events, or fails the test after 5 s.
func waitFD(t testing.TB, fd int, events int16) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
	for {
		n, err := unix.Poll(fds, 5000)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			t.Fatalf("poll fd %d: %v (n=%d)", fd, err, n)
		}
		return
	}
}

// waitUntil polls cond until it holds, or fails the test after d saying
// what did not happen: tests wait on a condition, never on a fixed sleep.
func waitUntil(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, d)
		}
	}
}

// queued is how many bytes wait in fd's receive queue (req unix.SIOCINQ:
// not yet read) or send queue (unix.SIOCOUTQ: not yet acknowledged by
// the peer).
func queued(t testing.TB, fd int, req uint) int {
	n, err := unix.IoctlGetInt(fd, req)
	if err != nil {
		t.Fatalf("ioctl fd %d: %v", fd, err)
	}
	return n
}

// readN reads exactly n bytes from c, waiting for readiness as a loop would.
func readN(t testing.TB, c Conn, buf []byte, n int) []byte {
	t.Helper()
	got := 0
	for got < n {
		k, err := c.Read(buf[got:n])
		got += k
		switch {
		case errors.Is(err, ErrWouldBlock):
			if c.Buffered() > 0 {
				t.Fatalf("Read said ErrWouldBlock with Buffered() = %d", c.Buffered())
			}
			waitFD(t, c.FD(), unix.POLLIN)
		case err != nil:
			t.Fatalf("Read after %d of %d bytes: %v", got, n, err)
		}
	}
	return buf[:n]
}

// writeAll writes p to c and flushes, waiting for writability.
func writeAll(t testing.TB, c Conn, p []byte) {
	t.Helper()
	for {
		n, err := c.Write(p)
		p = p[n:]
		switch {
		case errors.Is(err, ErrWouldBlock):
			waitFD(t, c.FD(), unix.POLLOUT)
		case err != nil:
			t.Fatalf("Write: %v", err)
		case len(p) == 0:
			return
		}
	}
}
