package main

import (
	"bufio"
	"crypto/tls"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// TestServeTLSFlagsThatCannotWork: each bad combination is refused with
// one line naming the flags.
func TestServeTLSFlagsThatCannotWork(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    serveTLSFlags
		want string
	}{
		{"a self-signed certificate and files", serveTLSFlags{SelfSigned: true, Cert: "c.pem", Key: "k.pem"}, "--tls-self-signed"},
		{"a certificate without its key", serveTLSFlags{Cert: "c.pem"}, "--tls-cert and --tls-key go together"},
		{"a key without its certificate", serveTLSFlags{Key: "k.pem"}, "--tls-cert and --tls-key go together"},
		{"no resumption without HTTPS", serveTLSFlags{NoResume: true}, "--tls-no-resume needs HTTPS"},
		{"a version cap without HTTPS", serveTLSFlags{Max: "1.2"}, "--tls-max needs HTTPS"},
		{"a version that is not one", serveTLSFlags{SelfSigned: true, Max: "1.1"}, `--tls-max "1.1": want 1.2 or 1.3`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("check() = %v, want an error with %q", err, tt.want)
			}
		})
	}
	if _, _, _, err := (serveTLSFlags{Cert: "/nonexistent.pem", Key: "/nonexistent.key"}).config(""); err == nil || !strings.Contains(err.Error(), "--tls-cert /nonexistent.pem") {
		t.Fatalf("missing files: %v, want an error naming them", err)
	}
}

// startTLSServe runs gust serve with TLS and returns its base URL and the
// fingerprint its start-up line printed.
func startTLSServe(t *testing.T, cfg serveConfig) (string, string) {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	lines, cancel, done := startServe(t, cfg)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runServe: %v", err)
		}
	})
	first, ok := <-lines
	if !ok {
		t.Fatalf("gust serve stopped: %v", <-done)
	}
	rest, ok := strings.CutPrefix(first, "gust serve: listening on https://")
	if !ok {
		t.Fatalf("start-up line %q, want https", first)
	}
	base := "https://" + strings.Fields(rest)[0]
	_, fp, ok := strings.Cut(<-lines, "SHA-256 fingerprint ")
	if !ok {
		t.Fatal("no fingerprint line")
	}
	return base, strings.TrimSuffix(fp, "; session resumption refused")
}

// TestServeTLSOnEveryEngine: gust serve --tls-self-signed on the gust
// engine (native and net/http APIs) and on net/http serves HTTPS with the
// certificate whose fingerprint it printed, resumes sessions unless
// --tls-no-resume, and answers the same from files (--tls-cert, --tls-key).
func TestServeTLSOnEveryEngine(t *testing.T) {
	dir := t.TempDir()
	files, _, err := selfSignedForWorkers([]string{"--tls-self-signed"}, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	certFile := strings.TrimPrefix(files[0], "--tls-cert=")
	keyFile := strings.TrimPrefix(files[1], "--tls-key=")
	engines := []struct{ name, engine, api string }{
		{"gust native", "gust", "native"},
		{"gust adapter", "gust", "nethttp"},
		{"nethttp", "nethttp", "native"},
	}
	sources := []struct {
		name string
		f    serveTLSFlags
	}{
		{"self-signed", serveTLSFlags{SelfSigned: true}},
		{"self-signed without resumption", serveTLSFlags{SelfSigned: true, NoResume: true}},
		{"self-signed, TLS 1.2 at most", serveTLSFlags{SelfSigned: true, Max: "1.2"}},
		{"from files", serveTLSFlags{Cert: certFile, Key: keyFile}},
	}
	for _, e := range engines {
		for _, src := range sources {
			t.Run(e.name+", "+src.name, func(t *testing.T) {
				base, fp := startTLSServe(t, serveConfig{Engine: e.engine, Mode: "pooled", API: e.api, TLS: src.f})
				cache := tls.NewLRUClientSessionCache(4)
				for i := range 2 {
					tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ClientSessionCache: cache, NextProtos: []string{"http/1.1"}}}
					resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(base + "/")
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					tr.CloseIdleConnections()
					if string(b) != "Hello, Go!" || resp.TLS.NegotiatedProtocol != "http/1.1" {
						t.Fatalf("got %q over %q", b, resp.TLS.NegotiatedProtocol)
					}
					if want := map[string]uint16{"": tls.VersionTLS13, "1.2": tls.VersionTLS12}[src.f.Max]; resp.TLS.Version != want {
						t.Fatalf("TLS version %x, want %x", resp.TLS.Version, want)
					}
					if got := transport.Fingerprint(resp.TLS.PeerCertificates[0].Raw); got != fp {
						t.Fatalf("served certificate %s, printed %s", got, fp)
					}
					if want := i == 1 && !src.f.NoResume; resp.TLS.DidResume != want {
						t.Fatalf("connection %d resumed %v, want %v", i, resp.TLS.DidResume, want)
					}
				}
			})
		}
	}
}

// TestServeTLSAnswersCurl: curl -k over TLS 1.2 and 1.3, two URLs on one
// keep-alive connection, against both engines.
func TestServeTLSAnswersCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl here")
	}
	for _, engine := range []string{"gust", "nethttp"} {
		base, _ := startTLSServe(t, serveConfig{Engine: engine, Mode: "pooled", API: "native", TLS: serveTLSFlags{SelfSigned: true}})
		for _, ver := range []struct{ name, min, max string }{{"TLS 1.2", "--tlsv1.2", "1.2"}, {"TLS 1.3", "--tlsv1.3", "1.3"}} {
			t.Run(engine+", "+ver.name, func(t *testing.T) {
				out, err := exec.Command(curl, "-skv", ver.min, "--tls-max", ver.max, base+"/a", base+"/b").CombinedOutput()
				if err != nil {
					t.Fatalf("curl: %v\n%s", err, out)
				}
				text := string(out)
				if strings.Count(text, "Hello, Go!") != 2 || !strings.Contains(text, "Re-using existing connection") ||
					!strings.Contains(text, "SSL connection using TLSv"+ver.max) {
					t.Fatalf("curl's output lacks two answers on one TLSv%s connection:\n%s", ver.max, text)
				}
				sc := bufio.NewScanner(strings.NewReader(text))
				for sc.Scan() {
					if strings.Contains(sc.Text(), "ALPN: server accepted") && !strings.Contains(sc.Text(), "http/1.1") {
						t.Fatalf("ALPN: %s", sc.Text())
					}
				}
			})
		}
	}
}

// TestServeTLSWorkersShareTicketKeys: two servers given the ticket key
// --workers shares resume each other's sessions.
func TestServeTLSWorkersShareTicketKeys(t *testing.T) {
	t.Setenv(ticketKeyEnv, "") // unset again after the test
	if err := shareTicketKey(); err != nil {
		t.Fatal(err)
	}
	a, _ := startTLSServe(t, serveConfig{Engine: "gust", Mode: "pooled", API: "native", TLS: serveTLSFlags{SelfSigned: true}})
	b, _ := startTLSServe(t, serveConfig{Engine: "nethttp", TLS: serveTLSFlags{SelfSigned: true}})
	cache := tls.NewLRUClientSessionCache(4)
	for i, base := range []string{a, b} {
		// One ServerName for both, so the client offers the first one's session to the second.
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ClientSessionCache: cache, ServerName: "localhost", NextProtos: []string{"http/1.1"}}}
		resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.TLS.DidResume != (i == 1) {
			t.Fatalf("connection %d resumed %v, want %v", i, resp.TLS.DidResume, i == 1)
		}
	}
	t.Setenv(ticketKeyEnv, "nothex")
	if _, _, _, err := (serveTLSFlags{SelfSigned: true}).config(""); err == nil || !strings.Contains(err.Error(), ticketKeyEnv) {
		t.Fatalf("a bad key: %v", err)
	}
}

// TestServeTLSSelfSignedSurvivesAnUpgrade: the processes of upgrades,
// given the certificate of --tls-self-signed through their environment,
// serve that one rather than a new one: the fingerprint holds.
func TestServeTLSSelfSignedSurvivesAnUpgrade(t *testing.T) {
	t.Setenv(selfSignedEnv, "") // unset again after the test
	flags := serveTLSFlags{SelfSigned: true}
	_, fresh1, _, err := flags.config("")
	if err != nil {
		t.Fatal(err)
	}
	_, fresh2, _, err := flags.config("")
	if err != nil {
		t.Fatal(err)
	}
	if fresh1 == fresh2 {
		t.Fatal("two processes alone made the same certificate")
	}
	if err := shareSelfSigned("127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	_, old, _, err := flags.config("")
	if err != nil {
		t.Fatal(err)
	}
	_, upgraded, _, err := flags.config("")
	if err != nil {
		t.Fatal(err)
	}
	if old != upgraded {
		t.Fatalf("the upgraded process serves another certificate:\n%s\n%s", old, upgraded)
	}
	t.Setenv(selfSignedEnv, "not PEM")
	if _, _, _, err := flags.config(""); err == nil || !strings.Contains(err.Error(), selfSignedEnv) {
		t.Fatalf("a bad certificate: %v", err)
	}
}
