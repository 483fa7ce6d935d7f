package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/result"
)

// tlsServer is net/http's httptest TLS server on loopback, at most
// maxVersion (0: TLS 1.3), answering "Hello, Go!" and, at /chunked, a
// chunked body written in three flushes.
func tlsServer(t testing.TB, maxVersion uint16) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			for _, part := range []string{"Hello", ", ", "Go!"} {
				w.Write([]byte(part))
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Write([]byte("Hello, Go!"))
	}))
	srv.TLS = &tls.Config{MaxVersion: maxVersion}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// trusting returns a TLSConfig that trusts srv's certificate (as --cacert
// with it would).
func trusting(srv *httptest.Server) TLSConfig {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return TLSConfig{RootCAs: pool}
}

func TestTLSMatrix(t *testing.T) {
	const n = 120
	servers := []struct {
		name    string
		max     uint16
		version string
	}{
		{"TLS 1.2 (crypto/tls MaxVersion)", tls.VersionTLS12, "TLS 1.2"},
		{"TLS 1.3 (net/http httptest)", 0, "TLS 1.3"},
	}
	loads := []struct {
		name        string
		path        string
		conns       int
		pipeline    int
		noKeepAlive bool
		noResume    bool
		rate        float64
	}{
		{"keep-alive", "/", 4, 1, false, false, 0},
		{"pipelining", "/", 2, 8, false, false, 0},
		{"chunked responses", "/chunked", 3, 1, false, false, 0},
		{"a new connection per request, resumed", "/", 2, 1, true, false, 0},
		{"a new connection per request, full handshakes", "/", 2, 1, true, true, 0},
		{"the open model", "/", 3, 1, false, false, 600},
	}
	for _, sv := range servers {
		srv := tlsServer(t, sv.max)
		for _, ld := range loads {
			t.Run(sv.name+"/"+ld.name, func(t *testing.T) {
				cfg := Config{
					URL: srv.URL + ld.path, Requests: n, Connections: ld.conns, Pipeline: ld.pipeline,
					DisableKeepAlive: ld.noKeepAlive, Timeout: 5 * time.Second, Loops: 2, TLS: trusting(srv), Rate: ld.rate,
				}
				cfg.TLS.NoResume = ld.noResume
				res := run(t, cfg)
				if res.Requests != n || res.Status[200] != n || res.ErrorCount() != 0 {
					t.Fatalf("requests %d status %v errors %v, want %d answered 200", res.Requests, res.Status, res.Errors, n)
				}
				tr := res.TLS
				if tr == nil {
					t.Fatal("no TLS record in the result of an https run")
				}
				hs := tr.Handshakes()
				// A connection opened as the run ends may not finish its handshake.
				if hs > res.Connects || res.Connects-hs > int64(ld.conns) || tr.Handshake.TotalCount() != hs {
					t.Errorf("handshakes %d (histogram %d), connects %d: want one per connect", hs, tr.Handshake.TotalCount(), res.Connects)
				}
				if tr.Versions[sv.version] != hs || tr.ALPN["http/1.1"] != hs || len(tr.CipherSuites) == 0 {
					t.Errorf("versions %v ALPN %v suites %v, want all %d %s with http/1.1", tr.Versions, tr.ALPN, tr.CipherSuites, hs, sv.version)
				}
				switch {
				case !ld.noKeepAlive && hs != int64(ld.conns):
					t.Errorf("keep-alive made %d handshakes, want one per connection (%d)", hs, ld.conns)
				case ld.noKeepAlive && hs < n:
					t.Errorf("a connection per request made %d handshakes for %d requests", hs, n)
				case ld.noKeepAlive && !ld.noResume && tr.Resumed < n/2:
					t.Errorf("resumed %d of %d handshakes, want most (one session cache per run)", tr.Resumed, hs)
				case ld.noResume && tr.Resumed != 0:
					t.Errorf("resumed %d handshakes with resumption off", tr.Resumed)
				}
			})
		}
	}
}

// TestTLSVersionFloor: --tls-min 1.3 against a TLS 1.2 server is refused
// at the probe, with the reason.
func TestTLSVersionFloor(t *testing.T) {
	srv := tlsServer(t, tls.VersionTLS12)
	cfg := Config{URL: srv.URL, Requests: 1, Timeout: 5 * time.Second, TLS: trusting(srv)}
	cfg.TLS.MinVersion = tls.VersionTLS13
	_, err := Run(context.Background(), cfg)
	var he *HandshakeError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("err = %v, want a HandshakeError about the protocol version", err)
	}
	if classifyHandshake(he.Err) != result.TLSErrVersion {
		t.Errorf("classified as %q, want %q", classifyHandshake(he.Err), result.TLSErrVersion)
	}
}

// TestTLSPlainTargetStaysPlain: an http:// run has no TLS record, so its
// reports do not change.
func TestTLSPlainTargetStaysPlain(t *testing.T) {
	res := run(t, Config{URL: helloServer(t).URL, Requests: 10, Connections: 1})
	if res.TLS != nil {
		t.Errorf("plain run has a TLS record: %+v", res.TLS)
	}
}

func TestClassifyHandshake(t *testing.T) {
	now := time.Now()
	cert := &x509.Certificate{NotBefore: now.Add(-2 * time.Hour), NotAfter: now.Add(-time.Hour)}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"an expired certificate", &tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Cert: cert, Reason: x509.Expired}}, result.TLSErrExpired},
		{"a certificate for other names", &tls.CertificateVerificationError{Err: x509.HostnameError{Certificate: cert, Host: "a.test"}}, result.TLSErrWrongName},
		{"an unknown authority", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{Cert: cert}}, result.TLSErrUnknownAuthority},
		{"another verification failure", &tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Cert: cert, Reason: x509.NotAuthorizedToSign}}, result.TLSErrCertificate},
		{"the server's protocol_version alert", &net.OpError{Op: "remote error", Err: errors.New("tls: protocol version not supported")}, result.TLSErrVersion},
		{"another alert", &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}, result.TLSErrAlert},
		{"the deadline", fmt.Errorf("tls handshake: %w", os.ErrDeadlineExceeded), result.TLSErrTimeout},
		{"a close", fmt.Errorf("tls handshake: %w", io.EOF), result.TLSErrClosed},
		{"a reset", fmt.Errorf("tls handshake: %w", syscall.ECONNRESET), result.TLSErrClosed},
		{"anything else", errors.New("tls: first record does not look like a TLS handshake"), result.TLSErrOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classifyHandshake(tt.err); got != tt.want {
				t.Errorf("classifyHandshake(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// TestTLSHandshakeFailuresMidRun: a server that completes the probe's
// handshake and then stalls every other one: each stalled handshake ends
// at the Timeout, counted as a connect_error and classified as a timeout,
// and the connection is not counted as connected meanwhile.
func TestTLSHandshakeFailuresMidRun(t *testing.T) {
	cert, _, err := transport.SelfSigned(nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	var probed atomic.Bool
	srv := newRawServer(t, func(c net.Conn) {
		if probed.CompareAndSwap(false, true) {
			tls.Server(c, cfg).Handshake()
			return
		}
		io.Copy(io.Discard, c) // never answers the ClientHello
	})
	res := run(t, Config{URL: "https://" + srv.ln.Addr().String() + "/", Duration: 1500 * time.Millisecond, Connections: 1,
		Timeout: 300 * time.Millisecond, TLS: TLSConfig{Insecure: true}})
	if res.Requests != 0 || res.TLS == nil || res.TLS.Handshakes() != 0 {
		t.Fatalf("requests %d, tls %+v: want no responses and no handshakes", res.Requests, res.TLS)
	}
	n := res.TLS.Errors[result.TLSErrTimeout]
	if n == 0 || n != res.Errors[result.ErrConnect] || n != res.TLS.ErrorCount() {
		t.Errorf("tls errors %v, errors %v: want timeouts, each one connect_error", res.TLS.Errors, res.Errors)
	}
}
