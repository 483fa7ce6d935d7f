//go:build linux

package transport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSelfSignedIsAnECDSAP256CertificateWithItsFingerprint(t *testing.T) {
	cert, fp, err := SelfSigned(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	leaf := cert.Leaf
	key, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || key.Curve != elliptic.P256() {
		t.Fatalf("public key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if fp != Fingerprint(cert.Certificate[0]) || len(fp) != 32*3-1 || strings.ToUpper(fp) != fp {
		t.Fatalf("fingerprint %q", fp)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
			t.Errorf("verify for %s: %v", name, err)
		}
	}
	if d := time.Until(leaf.NotAfter); d < 364*24*time.Hour {
		t.Errorf("valid for %v, want a year", d)
	}
}

// verifyError returns the error crypto/tls's client gives for a server
// certificate, on loopback (net.Pipe would deadlock: both sides write at once).
func verifyError(t *testing.T, server tls.Certificate, roots *x509.CertPool, name string) error {
	ln := newListener(t).ln
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	go tls.Server(a, &tls.Config{Certificates: []tls.Certificate{server}}).Handshake()
	return tls.Client(b, &tls.Config{RootCAs: roots, ServerName: name}).Handshake()
}

func TestVerifyErrorLineNamesTheReason(t *testing.T) {
	p := getPKI(t)
	ip := []net.IP{net.IPv4(127, 0, 0, 1)}
	_, _, expired := issueCert(t, certSpec{cn: "old", dns: []string{"localhost"}, ips: ip,
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)}, p.ca, p.caKey)
	_, _, future := issueCert(t, certSpec{cn: "future", dns: []string{"localhost"},
		notBefore: time.Now().Add(24 * time.Hour), notAfter: time.Now().Add(48 * time.Hour)}, p.ca, p.caKey)
	_, _, selfSigned := issueCert(t, certSpec{cn: "stranger", dns: []string{"localhost"}}, nil, nil)
	_, _, other := issueCert(t, certSpec{cn: "other", dns: []string{"example.com", "www.example.com"}, ips: ip}, p.ca, p.caKey)
	_, _, cnOnly := issueCert(t, certSpec{cn: "localhost"}, p.ca, p.caKey)
	tests := []struct {
		name string
		cert tls.Certificate
		host string
		want []string
	}{
		{"expired", expired, "localhost", []string{"has expired", "valid until"}},
		{"not yet valid", future, "localhost", []string{"not valid yet", "valid from"}},
		{"unknown authority", selfSigned, "localhost", []string{"unknown authority", `"stranger"`, "--cacert"}},
		{"wrong name", other, "localhost", []string{`not valid for "localhost"`, "example.com, www.example.com, 127.0.0.1"}},
		{"only a common name", cnOnly, "localhost", []string{"Common Name", "not checked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verifyError(t, tt.cert, p.pool, tt.host)
			if err == nil {
				t.Fatal("handshake succeeded")
			}
			line := VerifyErrorLine(err)
			t.Log(line)
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("VerifyErrorLine = %q; want it to contain %q", line, w)
				}
			}
			if strings.Contains(line, "\n") {
				t.Errorf("VerifyErrorLine = %q: more than one line", line)
			}
		})
	}
	if VerifyErrorLine(nil) != "" {
		t.Error("VerifyErrorLine(nil) != \"\"")
	}
}

func TestLoadCertPoolAndKeyPair(t *testing.T) {
	p := getPKI(t)
	dir := t.TempDir()
	write := func(name string, blocks ...*pem.Block) string {
		var b []byte
		for _, blk := range blocks {
			b = append(b, pem.EncodeToMemory(blk)...)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	keyDER, err := x509.MarshalECPrivateKey(p.leaf.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	caFile := write("ca.pem", &pem.Block{Type: "CERTIFICATE", Bytes: p.ca.Raw})
	certFile := write("cert.pem", &pem.Block{Type: "CERTIFICATE", Bytes: p.leaf.Certificate[0]})
	keyFile := write("key.pem", &pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	empty := write("empty.pem")

	pool, err := LoadCertPool(caFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.leaf.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"}); err != nil {
		t.Fatalf("leaf does not verify against the loaded pool: %v", err)
	}
	if _, err := LoadKeyPair(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	errs := []struct {
		name string
		err  error
		want string
	}{
		{"missing CA file", func() error { _, err := LoadCertPool(filepath.Join(dir, "nope")); return err }(), "--cacert"},
		{"CA file without PEM", func() error { _, err := LoadCertPool(empty); return err }(), "no PEM certificate"},
		{"cert without key", func() error { _, err := LoadKeyPair(certFile, ""); return err }(), "give both"},
		{"key that does not match", func() error { _, err := LoadKeyPair(caFile, keyFile); return err }(), "--cert " + caFile},
	}
	for _, e := range errs {
		if e.err == nil || !strings.Contains(e.err.Error(), e.want) {
			t.Errorf("%s: error %v; want it to contain %q", e.name, e.err, e.want)
		}
	}
}
