package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

// certFiles writes a self-signed pair into a temporary directory and
// returns the flags naming it and a pool that trusts it.
func certFiles(t *testing.T) (peer.TLSFlags, *x509.CertPool) {
	t.Helper()
	certPEM, keyPEM, err := peer.SelfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := peer.TLSFlags{CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	if err := os.WriteFile(f.CertFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.KeyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return f, pool
}

func TestModesAnswer(t *testing.T) {
	files, pool := certFiles(t)
	var h1, h2, h2c http.Protocols
	h1.SetHTTP1(true)
	h2.SetHTTP1(true)
	h2.SetHTTP2(true)
	h2c.SetUnencryptedHTTP2(true)
	for _, tc := range []struct {
		name      string
		tls       peer.TLSFlags
		http2     bool
		h2c       bool
		client    http.Protocols // what the client offers
		wantMajor int
	}{
		{"plain HTTP/1.1 answers", peer.TLSFlags{}, false, false, h1, 1},
		{"TLS from files answers HTTP/1.1 even to a client offering h2", files, false, false, h2, 1},
		{"TLS self-signed answers HTTP/1.1", peer.TLSFlags{SelfSigned: true}, false, false, h1, 1},
		{"-http2 answers h2 by ALPN", files, true, false, h2, 2},
		{"-http2 still answers an HTTP/1.1 client", files, true, false, h1, 1},
		{"-h2c answers HTTP/2 with prior knowledge", peer.TLSFlags{}, false, true, h2c, 2},
		{"-h2c still answers HTTP/1.1", peer.TLSFlags{}, false, true, h1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := newServer(peer.Flags{TLS: tc.tls}, tc.http2, tc.h2c)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				if srv.TLSConfig != nil {
					srv.ServeTLS(ln, "", "")
				} else {
					srv.Serve(ln)
				}
			}()
			defer srv.Close()
			tr := &http.Transport{Protocols: &tc.client, TLSClientConfig: &tls.Config{RootCAs: pool}}
			if tc.tls.SelfSigned {
				// The certificate is made inside the server: nothing to trust
				// but the handshake itself.
				tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
			}
			defer tr.CloseIdleConnections()
			url := (peer.Flags{TLS: tc.tls}).URL(ln.Addr().String()) + "/"
			resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || string(body) != hello.Text || resp.ProtoMajor != tc.wantMajor {
				t.Fatalf("got %s %d %q, want HTTP/%d.x 200 %q", resp.Proto, resp.StatusCode, body, tc.wantMajor, hello.Text)
			}
			if wantTLS := tc.tls.On(); (resp.TLS != nil) != wantTLS {
				t.Fatalf("TLS state %v, want TLS %v", resp.TLS != nil, wantTLS)
			}
		})
	}
}

func TestModeConflicts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tls       bool
		http2     bool
		h2c       bool
		wantInErr string
	}{
		{"-http2 without TLS is refused", false, true, false, "-http2 is HTTP/2 over TLS"},
		{"-h2c with TLS is refused", true, false, true, "-h2c is HTTP/2 without TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newServer(peer.Flags{TLS: peer.TLSFlags{SelfSigned: tc.tls}}, tc.http2, tc.h2c)
			if err == nil || !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("error %v, want %q", err, tc.wantInErr)
			}
		})
	}
}
