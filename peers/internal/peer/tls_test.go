package peer

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSelfSigned(t *testing.T) {
	now := time.Now()
	certPEM, keyPEM, err := SelfSigned(now)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("the PEM pair does not load: %v", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if cert.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("key algorithm %v, want ECDSA", cert.PublicKeyAlgorithm)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, CurrentTime: now}); err != nil {
			t.Errorf("does not verify for %s: %v", name, err)
		}
	}
	if fp := Fingerprint(certPEM); len(fp) != 64 {
		t.Errorf("fingerprint %q, want 64 hex digits", fp)
	}
}

func TestTLSFlags(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM, err := SelfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, certPEM, 0o600)
	os.WriteFile(keyFile, keyPEM, 0o600)
	for _, tc := range []struct {
		name    string
		tls     TLSFlags
		wantErr string
		wantOn  bool
	}{
		{"no flags mean plain HTTP", TLSFlags{}, "", false},
		{"a self-signed certificate is made", TLSFlags{SelfSigned: true}, "", true},
		{"files are read", TLSFlags{CertFile: certFile, KeyFile: keyFile}, "", true},
		{"a certificate needs its key", TLSFlags{CertFile: certFile}, "give both", true},
		{"self-signed and files conflict", TLSFlags{SelfSigned: true, CertFile: certFile, KeyFile: keyFile}, "not both", true},
		{"a missing file names its flag", TLSFlags{CertFile: filepath.Join(dir, "none"), KeyFile: keyFile}, "-tls-cert", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.tls.On() != tc.wantOn {
				t.Errorf("On() = %v, want %v", tc.tls.On(), tc.wantOn)
			}
			err := tc.tls.check()
			var cfg *tls.Config
			if err == nil {
				cfg, err = TLSConfig("test", Flags{TLS: tc.tls}, "h2", "http/1.1")
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (cfg != nil) != tc.wantOn {
				t.Fatalf("config %v, want one: %v", cfg != nil, tc.wantOn)
			}
			if cfg != nil && (len(cfg.Certificates) != 1 || strings.Join(cfg.NextProtos, ",") != "h2,http/1.1") {
				t.Errorf("config has %d certificates and ALPN %q", len(cfg.Certificates), cfg.NextProtos)
			}
		})
	}
}

func TestHandshakeWithSelfSigned(t *testing.T) {
	cfg, err := TLSConfig("test", Flags{TLS: TLSFlags{SelfSigned: true}}, "http/1.1")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cfg.Certificates[0].Certificate[0]}))
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatalf("a client trusting the certificate cannot connect: %v", err)
	}
	defer c.Close()
	if p := c.ConnectionState().NegotiatedProtocol; p != "http/1.1" {
		t.Errorf("ALPN chose %q, want http/1.1", p)
	}
}

func TestNoResumeForcesFullHandshakes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		noResume   bool
		wantResume bool
	}{
		{"a second connection resumes by default", false, true},
		{"-tls-no-resume makes it a full handshake", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := TLSConfig("test", Flags{TLS: TLSFlags{SelfSigned: true, NoResume: tc.noResume}})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Write([]byte("x")) // after the handshake, and after any ticket
					c.Close()
				}
			}()
			client := &tls.Config{InsecureSkipVerify: true, ClientSessionCache: tls.NewLRUClientSessionCache(4)}
			var resumed bool
			for range 2 {
				c, err := tls.Dial("tcp", ln.Addr().String(), client)
				if err != nil {
					t.Fatal(err)
				}
				c.Read(make([]byte, 1)) // reads the ticket too
				resumed = c.ConnectionState().DidResume
				c.Close()
			}
			if resumed != tc.wantResume {
				t.Fatalf("second connection resumed: %v, want %v", resumed, tc.wantResume)
			}
		})
	}
}
