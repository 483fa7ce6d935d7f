package main

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

func TestTLSAndPlainAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  peer.TLSFlags
	}{
		{"plain HTTP/1.1 answers", peer.TLSFlags{}},
		{"nbio's TLS answers with a self-signed certificate", peer.TLSFlags{SelfSigned: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			f := peer.Flags{Addr: addr, TLS: tc.tls}
			conf := nbhttp.Config{Network: "tcp", Handler: hello.Handler(nil, 0)}
			if err := configure(&conf, f); err != nil {
				t.Fatal(err)
			}
			engine := nbhttp.NewEngine(conf)
			if err := engine.Start(); err != nil {
				t.Fatal(err)
			}
			defer engine.Stop()
			var protos http.Protocols
			protos.SetHTTP1(true)
			protos.SetHTTP2(true) // offered: the peer must pick http/1.1
			tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, Protocols: &protos}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
			for i := range 3 { // keep-alive: later requests reuse the connection
				resp, err := client.Get(f.URL(addr) + "/")
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(body) != hello.Text || resp.ProtoMajor != 1 {
					t.Fatalf("request %d: got %s %d %q, want HTTP/1.1 200 %q", i, resp.Proto, resp.StatusCode, body, hello.Text)
				}
				if (resp.TLS != nil) != tc.tls.On() {
					t.Fatalf("TLS %v, want %v", resp.TLS != nil, tc.tls.On())
				}
				if resp.TLS != nil && resp.TLS.NegotiatedProtocol != "http/1.1" {
					t.Fatalf("ALPN %q, want http/1.1", resp.TLS.NegotiatedProtocol)
				}
			}
		})
	}
}

func TestNoResumeOnNbiosTLS(t *testing.T) {
	for _, tc := range []struct {
		name       string
		noResume   bool
		wantResume bool
	}{
		{"a new connection resumes by default", false, true},
		{"-tls-no-resume makes every handshake full", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			f := peer.Flags{Addr: addr, TLS: peer.TLSFlags{SelfSigned: true, NoResume: tc.noResume}}
			conf := nbhttp.Config{Network: "tcp", Handler: hello.Handler(nil, 0)}
			if err := configure(&conf, f); err != nil {
				t.Fatal(err)
			}
			engine := nbhttp.NewEngine(conf)
			if err := engine.Start(); err != nil {
				t.Fatal(err)
			}
			defer engine.Stop()
			cache := tls.NewLRUClientSessionCache(4)
			var resumed bool
			for i := range 2 {
				// A new transport per request: a new connection, the session cache shared.
				tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ClientSessionCache: cache}}
				resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(f.URL(addr) + "/")
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				io.ReadAll(resp.Body)
				resp.Body.Close()
				resumed = resp.TLS.DidResume
				tr.CloseIdleConnections()
			}
			if resumed != tc.wantResume {
				t.Fatalf("second connection resumed: %v, want %v", resumed, tc.wantResume)
			}
		})
	}
}
