package load

import (
	"crypto/tls"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// alpnServer is net/http's TLS server on loopback that counts the
// requests it got over each protocol. offer picks, for its n-th handshake
// (from 0, the start-up probe's included), the protocols it accepts by
// ALPN, as net/http's server would configure them.
type alpnServer struct {
	url    string
	h1, h2 atomic.Int64
}

// newALPNServer starts an alpnServer. With holdUntilBoth, a request is
// answered only once both protocols have had one (or after 5 s): the
// run's request budget is shared, and the connections that finish their
// handshakes first could otherwise spend all of it before the others
// send anything.
func newALPNServer(t *testing.T, offer func(n int64) []string, holdUntilBoth bool) *alpnServer {
	t.Helper()
	s := &alpnServer{}
	both := make(chan struct{})
	var bothOnce sync.Once
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			s.h2.Add(1)
		} else {
			s.h1.Add(1)
		}
		if holdUntilBoth {
			if s.h1.Load() > 0 && s.h2.Load() > 0 {
				bothOnce.Do(func() { close(both) })
			}
			select {
			case <-both:
			case <-time.After(5 * time.Second):
				// One protocol never came: let the run end, so that the
				// test reports it rather than waiting 5 s per request.
				bothOnce.Do(func() { close(both) })
			}
		}
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("Hello, Go!"))
	}))
	// Both protocols served; ALPN says which one a connection gets.
	srv.Config.Protocols = &http.Protocols{}
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetHTTP2(true)
	srv.EnableHTTP2 = true
	var handshakes atomic.Int64
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		cfg := srv.TLS.Clone() // the started server's, with its certificate
		cfg.GetConfigForClient = nil
		cfg.NextProtos = offer(handshakes.Add(1) - 1)
		return cfg, nil
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/"
	return s
}

// TestAutoProtocolFollowsTheServer: --proto auto offers h2 and http/1.1,
// and each connection speaks what the server picked; the Result says
// "auto" and counts the connections that got each protocol.
func TestAutoProtocolFollowsTheServer(t *testing.T) {
	const n = 400
	h2Only := func(int64) []string { return []string{"h2"} }
	h1Only := func(int64) []string { return []string{"http/1.1"} }
	// The probe is handshake 0 (h2), then the run's four connections
	// alternate: http/1.1, h2, http/1.1, h2.
	alternate := func(i int64) []string {
		if i%2 == 1 {
			return []string{"http/1.1"}
		}
		return []string{"h2"}
	}
	tests := []struct {
		name      string
		offer     func(int64) []string
		pipeline  int
		wantConns map[string]int64
		wantH2    bool // some requests arrive over HTTP/2
		wantH1    bool
	}{
		{"a server that offers h2 gets HTTP/2 on every connection", h2Only, 1, map[string]int64{"h2": 4, "http/1.1": 0}, true, false},
		{"a server that offers only http/1.1 gets HTTP/1.1, pipelined", h1Only, 4, map[string]int64{"h2": 0, "http/1.1": 4}, false, true},
		{"a server that picks per connection gets both", alternate, 1, map[string]int64{"h2": 2, "http/1.1": 2}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newALPNServer(t, tt.offer, tt.wantH1 && tt.wantH2)
			res := run(t, Config{
				URL: srv.url, Connections: 4, Loops: 2, Requests: n, AutoProtocol: true, Streams: 8,
				Pipeline: tt.pipeline, TLS: TLSConfig{Insecure: true},
			})
			if res.Requests != n || res.ErrorCount() != 0 {
				t.Fatalf("requests %d, %s", res.Requests, h2Errors(res))
			}
			h1, h2 := srv.h1.Load(), srv.h2.Load()
			if h1+h2 != n || (h2 > 0) != tt.wantH2 || (h1 > 0) != tt.wantH1 {
				t.Errorf("server saw %d HTTP/2 and %d HTTP/1.1 requests, want HTTP/2 %v, HTTP/1.1 %v", h2, h1, tt.wantH2, tt.wantH1)
			}
			if res.Protocol != result.ProtoAuto || !maps.Equal(res.Protocols, tt.wantConns) {
				t.Errorf("protocol %q, connections %v; want auto, %v", res.Protocol, res.Protocols, tt.wantConns)
			}
			if res.HTTP2 == nil || res.HTTP2.Streams != 8 || res.SpokeHTTP2() != tt.wantH2 {
				t.Errorf("HTTP2 %+v, spoke HTTP/2 %v; want 8 streams, spoke HTTP/2 %v", res.HTTP2, res.SpokeHTTP2(), tt.wantH2)
			}
			if res.Pipeline != tt.pipeline {
				t.Errorf("pipeline %d, want %d", res.Pipeline, tt.pipeline)
			}
		})
	}
}
