package server

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tlsEcho answers "path bodylen tls" on the native API: tls is "-", the
// native API does not show the TLS state.
var tlsEcho = HandlerFunc(func(c *Ctx) {
	c.WriteString(string(c.Path()) + " " + strconv.Itoa(len(c.Body())) + " -")
})

// tlsEchoHTTP answers "path bodylen version/alpn/sni" through the adapter,
// reading the body as it streams, and flushes a response in pieces for
// /flush.
var tlsEchoHTTP = HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/flush" {
		for i := range 3 {
			fmt.Fprintf(w, "part%d;", i)
			w.(http.Flusher).Flush()
		}
		return
	}
	n, _ := io.Copy(io.Discard, r.Body)
	state := "none"
	if r.TLS != nil {
		state = fmt.Sprintf("%x/%s/%s", r.TLS.Version, r.TLS.NegotiatedProtocol, r.TLS.ServerName)
	}
	fmt.Fprintf(w, "%s %d %s", r.URL.Path, n, state)
}))

// TestTLSServesEveryAPIAndMode runs keep-alive, chunked and streamed
// bodies, pipelining and flushed responses over TLS 1.2 and 1.3, for the
// native API in both modes and for the net/http adapter.
func TestTLSServesEveryAPIAndMode(t *testing.T) {
	apis := []struct {
		name    string
		h       Handler
		mode    Mode
		adapter bool
	}{
		{"native inline", tlsEcho, Inline, false},
		{"native pooled", tlsEcho, Pooled, false},
		{"adapter", tlsEchoHTTP, Pooled, true},
	}
	big := strings.Repeat("x", 1<<20)
	for _, ver := range tlsVersions {
		for _, api := range apis {
			tlsInfo := func() string {
				if !api.adapter {
					return "-"
				}
				return fmt.Sprintf("%x/http/1.1/localhost", ver.v)
			}
			t.Run(ver.name+", "+api.name, func(t *testing.T) {
				s := startTLS(t, api.h, Config{Mode: api.mode})
				client := tlsHTTPClient(t, ver.v)
				get := func(t *testing.T, method, path string, body io.Reader) string {
					t.Helper()
					req, _ := http.NewRequest(method, "https://"+s.Addr().String()+path, body)
					resp, err := client.Do(req)
					if err != nil {
						t.Fatalf("%s %s: %v", method, path, err)
					}
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					if err != nil || resp.StatusCode != 200 {
						t.Fatalf("%s %s: %d %q %v", method, path, resp.StatusCode, b, err)
					}
					if resp.TLS == nil || resp.TLS.Version != ver.v || resp.TLS.NegotiatedProtocol != "http/1.1" {
						t.Fatalf("%s %s: client's TLS state %+v", method, path, resp.TLS)
					}
					return string(b)
				}
				t.Run("keep-alive requests share one connection", func(t *testing.T) {
					for i := range 5 {
						path := "/ka" + strconv.Itoa(i)
						if got, want := get(t, "GET", path, nil), path+" 0 "+tlsInfo(); got != want {
							t.Fatalf("got %q, want %q", got, want)
						}
					}
					if st := s.Stats(); st.Accepted != 1 {
						t.Fatalf("%d connections accepted for 5 keep-alive requests, want 1", st.Accepted)
					}
				})
				t.Run("a chunked body arrives whole", func(t *testing.T) {
					body := io.MultiReader(strings.NewReader("hello "), strings.NewReader("chunked world"))
					if got, want := get(t, "POST", "/chunked", body), "/chunked 19 "+tlsInfo(); got != want {
						t.Fatalf("got %q, want %q", got, want)
					}
				})
				t.Run("a 1 MiB body arrives whole", func(t *testing.T) {
					if got, want := get(t, "POST", "/big", strings.NewReader(big)), "/big 1048576 "+tlsInfo(); got != want {
						t.Fatalf("got %q, want %q", got, want)
					}
				})
				if api.adapter {
					t.Run("a flushed response arrives in order", func(t *testing.T) {
						if got := get(t, "GET", "/flush", nil); got != "part0;part1;part2;" {
							t.Fatalf("got %q", got)
						}
					})
				}
				t.Run("pipelined requests are answered in order", func(t *testing.T) {
					c := dialTLS(t, s, clientTLS(ver.v))
					var req strings.Builder
					for i := range 20 {
						fmt.Fprintf(&req, "GET /p%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
					}
					if _, err := io.WriteString(c, req.String()); err != nil {
						t.Fatal(err)
					}
					r := bufio.NewReader(c)
					for i := range 20 {
						resp, err := http.ReadResponse(r, nil)
						if err != nil {
							t.Fatalf("response %d: %v", i, err)
						}
						b, _ := io.ReadAll(resp.Body)
						if want := fmt.Sprintf("/p%d 0 %s", i, tlsInfo()); string(b) != want {
							t.Fatalf("response %d: %q, want %q", i, b, want)
						}
					}
				})
			})
		}
	}
}

// TestTLSResumesSessionsUnlessRefused connects twice with one session
// cache: the second handshake resumes, unless the server disables
// tickets (gust serve --tls-no-resume).
func TestTLSResumesSessionsUnlessRefused(t *testing.T) {
	for _, ver := range tlsVersions {
		for _, refuse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, tickets disabled %v", ver.name, refuse), func(t *testing.T) {
				cfg := serverTLS()
				cfg.SessionTicketsDisabled = refuse
				s := startTLS(t, tlsEcho, Config{TLS: cfg})
				ccfg := clientTLS(ver.v)
				ccfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
				for i := range 2 {
					c := dialTLS(t, s, ccfg)
					// TLS 1.3 tickets come after the handshake: a request
					// reads them.
					io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
					resp, err := http.ReadResponse(bufio.NewReader(c), nil)
					if err != nil {
						t.Fatal(err)
					}
					io.ReadAll(resp.Body)
					resumed := c.ConnectionState().DidResume
					if want := i == 1 && !refuse; resumed != want {
						t.Fatalf("connection %d resumed %v, want %v", i, resumed, want)
					}
					c.Close()
				}
			})
		}
	}
}

// TestTLSConfigNeedsACertificate: a Config.TLS without a certificate is
// refused by Listen, with a message that says what to set.
func TestTLSConfigNeedsACertificate(t *testing.T) {
	s := &Server{Handler: tlsEcho, Config: Config{TLS: &tls.Config{}}}
	err := s.Listen("127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), "Certificates") {
		t.Fatalf("Listen: %v, want an error naming Certificates", err)
	}
}

// TestALPNOffersHTTP2OnlyWhenServed: ALPN offers http/1.1, and h2 only
// when the HTTP/2 hook says the server serves it.
func TestALPNOffersHTTP2OnlyWhenServed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		given []string
		h2    bool
		want  string
	}{
		{"by default, http/1.1 alone", nil, false, "http/1.1"},
		{"with HTTP/2 served, h2 first", nil, true, "h2,http/1.1"},
		{"a configured h2 is dropped without HTTP/2", []string{"h2", "http/1.1"}, false, "http/1.1"},
		{"a configured list is kept with HTTP/2", []string{"http/1.1", "h2"}, true, "http/1.1,h2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := serverTLS()
			cfg.NextProtos = tt.given
			got, err := prepareTLS(cfg, tt.h2)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got.NextProtos, ",") != tt.want {
				t.Fatalf("NextProtos %q, want %s", got.NextProtos, tt.want)
			}
			if strings.Join(cfg.NextProtos, ",") != strings.Join(tt.given, ",") {
				t.Fatalf("the caller's config was changed: %q", cfg.NextProtos)
			}
		})
	}
}

// TestTLSLargeResponsesAndHandedOverConnections: a response larger than
// the socket takes at once reaches a client that reads late (the loop
// waits for writability with TLS records held), and connections accepted
// by one loop and handed to another (AcceptOne) do their handshake there.
func TestTLSLargeResponsesAndHandedOverConnections(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 256<<10) // 4 MiB
	h := HandlerFunc(func(c *Ctx) {
		if string(c.Path()) == "/big" {
			c.WriteString(big)
			return
		}
		c.WriteString("small")
	})
	for _, mode := range []Mode{Inline, Pooled} {
		t.Run(mode.String(), func(t *testing.T) {
			s := startTLS(t, h, Config{Mode: mode, Loops: 2, Acceptor: AcceptOne})
			for range 4 {
				c := dialTLS(t, s, clientTLS(0))
				io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
				time.Sleep(100 * time.Millisecond) // the server's socket fills up
				r := bufio.NewReader(c)
				for _, want := range []string{big, "small"} {
					resp, err := http.ReadResponse(r, nil)
					if err != nil {
						t.Fatal(err)
					}
					b, err := io.ReadAll(resp.Body)
					if err != nil || string(b) != want {
						t.Fatalf("%d bytes, %v; want %d", len(b), err, len(want))
					}
				}
			}
		})
	}
}

// TestListenAndServeTLSReadsItsFiles: ListenAndServeTLS serves the
// certificate in its files, leaves Config.TLS as it was, and names a file
// it cannot read.
func TestListenAndServeTLSReadsItsFiles(t *testing.T) {
	cert, _ := testCert()
	dir := t.TempDir()
	certFile, keyFile := dir+"/cert.pem", dir+"/key.pem"
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)

	given := &tls.Config{MinVersion: tls.VersionTLS13}
	s := &Server{Handler: tlsEcho, Config: Config{TLS: given}}
	errc := make(chan error, 1)
	// Port 0 cannot be known before Listen: find a free one first.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	go func() { errc <- s.ListenAndServeTLS(addr, certFile, keyFile) }()
	defer s.Close()
	client := tlsHTTPClient(t, 0)
	var resp *http.Response
	for i := 0; ; i++ {
		if resp, err = client.Get("https://" + addr + "/files"); err == nil || i == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "/files 0 -" || resp.TLS.Version != tls.VersionTLS13 {
		t.Fatalf("got %q over %x", b, resp.TLS.Version)
	}
	if s.Config.TLS != given || len(given.Certificates) != 0 {
		t.Fatal("ListenAndServeTLS changed Config.TLS")
	}
	s.Close()
	<-errc

	s2 := &Server{Handler: tlsEcho}
	if err := s2.ListenAndServeTLS("127.0.0.1:0", dir+"/missing.pem", keyFile); err == nil || !strings.Contains(err.Error(), "missing.pem") {
		t.Fatalf("ListenAndServeTLS with a missing file: %v", err)
	}
}

// TestCtxTLSShowsTheConnection: the native API sees the TLS state through
// Ctx.TLS, and nil over plain TCP.
func TestCtxTLSShowsTheConnection(t *testing.T) {
	h := HandlerFunc(func(c *Ctx) {
		st := c.TLS()
		if st == nil {
			c.WriteString("plain")
			return
		}
		fmt.Fprintf(c, "%x %s %s %v", st.Version, st.NegotiatedProtocol, st.ServerName, st.HandshakeComplete)
	})
	for _, mode := range []Mode{Inline, Pooled} {
		t.Run(mode.String(), func(t *testing.T) {
			s := startTLS(t, h, Config{Mode: mode})
			for _, ver := range tlsVersions {
				c := dialTLS(t, s, clientTLS(ver.v))
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				if want := fmt.Sprintf("%x http/1.1 localhost true", ver.v); string(b) != want {
					t.Fatalf("%s: %q, want %q", ver.name, b, want)
				}
			}
			plain := start(t, h, Config{Mode: mode})
			if _, body := exchange(t, plain, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); body != "plain" {
				t.Fatalf("over plain TCP: %q", body)
			}
		})
	}
}
