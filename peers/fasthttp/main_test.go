package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

func TestTLSAndPlainAnswer(t *testing.T) {
	certPEM, keyPEM, err := peer.SelfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := peer.TLSFlags{CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	os.WriteFile(files.CertFile, certPEM, 0o600)
	os.WriteFile(files.KeyFile, keyPEM, 0o600)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	for _, tc := range []struct {
		name string
		tls  peer.TLSFlags
		cfg  *tls.Config
	}{
		{"plain HTTP/1.1 answers", peer.TLSFlags{}, nil},
		{"TLS from files answers a verifying client", files, &tls.Config{RootCAs: pool}},
		{"TLS self-signed answers", peer.TLSFlags{SelfSigned: true}, &tls.Config{InsecureSkipVerify: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := peer.Flags{Addr: "127.0.0.1:0", TLS: tc.tls}
			ln, _, err := listen(f)
			if err != nil {
				t.Fatal(err)
			}
			srv := &fasthttp.Server{Handler: answer(0, "text/plain; charset=utf-8", body)}
			go srv.Serve(ln)
			defer srv.Shutdown()
			// The client offers h2 too: the peer must pick http/1.1.
			var protos http.Protocols
			protos.SetHTTP1(true)
			protos.SetHTTP2(true)
			tr := &http.Transport{TLSClientConfig: tc.cfg, Protocols: &protos}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(f.URL(ln.Addr().String()) + "/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != hello.Text || resp.ProtoMajor != 1 {
				t.Fatalf("got %s %d %q, want HTTP/1.1 200 %q", resp.Proto, resp.StatusCode, body, hello.Text)
			}
			if (resp.TLS != nil) != tc.tls.On() {
				t.Fatalf("TLS %v, want %v", resp.TLS != nil, tc.tls.On())
			}
			if resp.TLS != nil && resp.TLS.NegotiatedProtocol != "http/1.1" {
				t.Fatalf("ALPN %q, want http/1.1", resp.TLS.NegotiatedProtocol)
			}
		})
	}
}
