package server

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// testCert is one self-signed certificate for 127.0.0.1 shared by the TLS
// tests, and the pool a client trusts it with.
var testCert = sync.OnceValues(func() (tls.Certificate, *x509.CertPool) {
	cert, _, err := transport.SelfSigned(nil, 0)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	return cert, pool
})

// serverTLS returns a server tls.Config with the test certificate.
func serverTLS() *tls.Config {
	cert, _ := testCert()
	return &tls.Config{Certificates: []tls.Certificate{cert}}
}

// clientTLS returns a client tls.Config that trusts the test certificate
// and speaks exactly version (0: whatever both sides prefer).
func clientTLS(version uint16) *tls.Config {
	_, pool := testCert()
	return &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: version, MaxVersion: version, NextProtos: []string{"http/1.1"}}
}

// startTLS starts a TLS server with handler h on a loopback port.
func startTLS(t testing.TB, h Handler, cfg Config) *Server {
	t.Helper()
	if cfg.TLS == nil {
		cfg.TLS = serverTLS()
	}
	return serveForTest(t, &Server{Handler: h, Config: cfg})
}

// tlsHTTPClient returns a net/http client over TLS version to a test server.
func tlsHTTPClient(t testing.TB, version uint16) *http.Client {
	tr := &http.Transport{TLSClientConfig: clientTLS(version), ForceAttemptHTTP2: false}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// dialTLS opens a TLS connection to s and completes its handshake.
func dialTLS(t testing.TB, s *Server, cfg *tls.Config) *tls.Conn {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", s.Addr().String(), cfg)
	if err != nil {
		t.Fatalf("TLS dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// tlsVersions names the versions every TLS test runs with.
var tlsVersions = []struct {
	name string
	v    uint16
}{{"TLS 1.2", tls.VersionTLS12}, {"TLS 1.3", tls.VersionTLS13}}
