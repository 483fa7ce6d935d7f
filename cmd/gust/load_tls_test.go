package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testPKI is a CA made for one test, and the files it wrote.
type testPKI struct {
	dir    string
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caFile string
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	p.ca, p.caKey = p.sign(t, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "gust test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil, nil)
	p.caFile = p.writePEM(t, "ca.pem", "CERTIFICATE", p.ca.Raw)
	return p
}

// sign makes a certificate from tmpl signed by parent (self-signed when
// parent is nil).
func (p *testPKI) sign(t *testing.T, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.SerialNumber = serial
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
	return cert, key
}

// leaf makes a certificate for names, valid from notBefore to notAfter,
// signed by the CA (or by itself when selfSigned).
func (p *testPKI) leaf(t *testing.T, names []string, notBefore, notAfter time.Time, selfSigned bool, usage x509.ExtKeyUsage) tls.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: names[0]},
		NotBefore:   notBefore,
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	parent, parentKey := p.ca, p.caKey
	if selfSigned {
		parent, parentKey = nil, nil
	}
	cert, key := p.sign(t, tmpl, parent, parentKey)
	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
}

func (p *testPKI) writePEM(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writePair writes cert and its key as PEM files (--cert, --key).
func (p *testPKI) writePair(t *testing.T, name string, cert tls.Certificate) (string, string) {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(cert.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	return p.writePEM(t, name+".pem", "CERTIFICATE", cert.Certificate[0]), p.writePEM(t, name+"-key.pem", "EC PRIVATE KEY", der)
}

// httpsTarget serves "Hello, Go!" over TLS with cert, recording the SNI
// names it is asked for; cfg adjusts its tls.Config.
func httpsTarget(t *testing.T, cert tls.Certificate, cfg func(*tls.Config)) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var sni []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("Hello, Go!"))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point of some tests
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{cert},
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			mu.Lock()
			sni = append(sni, h.ServerName)
			mu.Unlock()
			return nil, nil
		},
	}
	if cfg != nil {
		cfg(srv.TLS)
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), sni...)
	}
}

// TestLoadRefusedCertificates: a certificate that is expired, for another
// name, or signed by an unknown authority stops gust load before the run,
// with the reason on one line and exit status 1, no report, no stack.
func TestLoadRefusedCertificates(t *testing.T) {
	p := newTestPKI(t)
	now := time.Now()
	tests := []struct {
		name string
		cert tls.Certificate
		want string
	}{
		{"expired", p.leaf(t, []string{"127.0.0.1"}, now.Add(-48*time.Hour), now.Add(-24*time.Hour), false, x509.ExtKeyUsageServerAuth), "has expired: valid until"},
		{"wrong name", p.leaf(t, []string{"other.example.test"}, now.Add(-time.Hour), now.Add(time.Hour), false, x509.ExtKeyUsageServerAuth), `is not valid for "127.0.0.1": it is for other.example.test`},
		{"unknown authority", p.leaf(t, []string{"127.0.0.1"}, now.Add(-time.Hour), now.Add(time.Hour), true, x509.ExtKeyUsageServerAuth), "signed by an unknown authority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := httpsTarget(t, tt.cert, nil)
			stdout, stderr, code := gustProcess(t, 20*time.Second, "load", "-n", "5", "-c", "1", "--timeout", "5s", "--cacert", p.caFile, url)
			if code != 1 || stdout != "" {
				t.Errorf("exit status %d, stdout %q: want 1 and no report", code, stdout)
			}
			if !strings.HasPrefix(stderr, "gust: load: tls handshake with 127.0.0.1:") || !strings.Contains(stderr, tt.want) ||
				strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr %q: want one line saying %q", stderr, tt.want)
			}
		})
	}
}

// TestLoadOverTLS: what gust load's TLS flags do, end to end.
func TestLoadOverTLS(t *testing.T) {
	p := newTestPKI(t)
	now := time.Now()
	byIP := p.leaf(t, []string{"127.0.0.1"}, now.Add(-time.Hour), now.Add(time.Hour), false, x509.ExtKeyUsageServerAuth)
	byName := p.leaf(t, []string{"api.example.test"}, now.Add(-time.Hour), now.Add(time.Hour), false, x509.ExtKeyUsageServerAuth)
	selfSigned := p.leaf(t, []string{"127.0.0.1"}, now.Add(-time.Hour), now.Add(time.Hour), true, x509.ExtKeyUsageServerAuth)
	client := p.leaf(t, []string{"gust-client"}, now.Add(-time.Hour), now.Add(time.Hour), false, x509.ExtKeyUsageClientAuth)
	certFile, keyFile := p.writePair(t, "client", client)
	requireClient := func(c *tls.Config) {
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = x509.NewCertPool()
		c.ClientCAs.AddCert(p.ca)
	}
	tls12 := func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 }
	tests := []struct {
		name     string
		cert     tls.Certificate
		server   func(*tls.Config)
		args     []string
		version  string
		resumed  string // "some" or "none" of the handshakes resumed; "" either (keep-alive connections may share a ticket)
		wantSNI  string // the server name every handshake asked for
		wantNone bool   // no SNI at all (an IP address)
	}{
		{"--cacert verifies an IP target", byIP, nil, []string{"--cacert", p.caFile}, "TLS 1.3", "", "", true},
		{"-H Host: names the server for SNI and verification", byName, nil, []string{"--cacert", p.caFile, "-H", "Host: api.example.test:443"}, "TLS 1.3", "", "api.example.test", false},
		{"--insecure accepts a self-signed certificate", selfSigned, nil, []string{"--insecure"}, "TLS 1.3", "", "", true},
		{"--cert and --key answer a server that asks", byIP, requireClient, []string{"--cacert", p.caFile, "--cert", certFile, "--key", keyFile}, "TLS 1.3", "", "", true},
		{"--disable-keepalive resumes sessions", byIP, tls12, []string{"--cacert", p.caFile, "--disable-keepalive"}, "TLS 1.2", "some", "", true},
		{"--no-tls-resume forces full handshakes", byIP, tls12, []string{"--cacert", p.caFile, "--disable-keepalive", "--no-tls-resume"}, "TLS 1.2", "none", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, sni := httpsTarget(t, tt.cert, tt.server)
			args := append([]string{"load", "-n", "40", "-c", "2", "--loops", "1", "--timeout", "5s", "-o", "json"}, tt.args...)
			stdout, stderr, err := gust(t, append(args, url)...)
			if err != nil {
				t.Fatalf("gust load: %v (stderr %q)", err, stderr)
			}
			var doc struct {
				Requests int64
				TLS      *struct {
					Versions map[string]int64
					Full     int64
					Resumed  int64
				}
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Requests != 40 || doc.TLS == nil || doc.TLS.Versions[tt.version] != doc.TLS.Full+doc.TLS.Resumed {
				t.Fatalf("requests %d, tls %+v: want 40 over %s", doc.Requests, doc.TLS, tt.version)
			}
			if tt.resumed == "some" && doc.TLS.Resumed == 0 || tt.resumed == "none" && doc.TLS.Resumed != 0 {
				t.Errorf("%d full, %d resumed: want resumed = %v", doc.TLS.Full, doc.TLS.Resumed, tt.resumed)
			}
			for _, name := range sni() {
				if tt.wantNone && name != "" || !tt.wantNone && name != tt.wantSNI {
					t.Fatalf("SNI %q, want %q", name, tt.wantSNI)
				}
			}
		})
	}
}

// TestReplayOverTLS: gust replay sends a log to an https target, with SNI
// from --host.
func TestReplayOverTLS(t *testing.T) {
	p := newTestPKI(t)
	now := time.Now()
	cert := p.leaf(t, []string{"logs.example.test"}, now.Add(-time.Hour), now.Add(time.Hour), false, x509.ExtKeyUsageServerAuth)
	url, sni := httpsTarget(t, cert, nil)
	stdout, stderr, err := gust(t, "replay", "--target", url, "--host", "logs.example.test", "--cacert", p.caFile,
		"--max", "-c", "2", "--loops", "1", "--timeout", "5s", "-o", "json", accessLog(t, 30, false))
	if err != nil {
		t.Fatalf("gust replay: %v (stderr %q)", err, stderr)
	}
	var doc struct {
		Requests int64
		TLS      *struct{ Full, Resumed int64 }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Requests != 30 || doc.TLS == nil || doc.TLS.Full+doc.TLS.Resumed == 0 {
		t.Errorf("requests %d, tls %+v: want 30 over TLS", doc.Requests, doc.TLS)
	}
	for _, name := range sni() {
		if name != "logs.example.test" {
			t.Fatalf("SNI %q, want logs.example.test (from --host)", name)
		}
	}
}
