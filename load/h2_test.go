package load

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// h2cServer is net/http's HTTP/2 server with prior knowledge (h2c) on
// loopback. It answers ?size=N with N bytes (default "Hello, Go!"), reads
// every request body and says its length in X-Body-Bytes, and counts the
// requests that did not arrive over HTTP/2.
type h2cServer struct {
	url     string
	srv     *http.Server
	h1      atomic.Int64 // requests that were not HTTP/2
	bodies  atomic.Int64 // request body bytes read
	maxBody atomic.Int64 // the largest request body read
}

func newH2CServer(t testing.TB, cfg *http.HTTP2Config, handler http.HandlerFunc) *h2cServer {
	t.Helper()
	s := &h2cServer{}
	if handler == nil {
		handler = s.answer
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			s.h1.Add(1)
		}
		handler(w, r)
	}), Protocols: &http.Protocols{}, HTTP2: cfg}
	s.srv.Protocols.SetUnencryptedHTTP2(true)
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	s.url = "http://" + ln.Addr().String() + "/"
	return s
}

func (s *h2cServer) answer(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	s.bodies.Add(n)
	for m := s.maxBody.Load(); n > m && !s.maxBody.CompareAndSwap(m, n); m = s.maxBody.Load() {
	}
	w.Header().Set("X-Body-Bytes", strconv.FormatInt(n, 10))
	if size, err := strconv.Atoi(r.URL.Query().Get("size")); err == nil {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Write([]byte(strings.Repeat("x", size)))
		return
	}
	w.Write([]byte("Hello, Go!"))
}

// TestHTTP2AgainstNetHTTP runs gust load --http2 against net/http's h2c
// server: every request answered over HTTP/2, bodies of every size sent
// whole, responses larger than the initial windows read whole.
func TestHTTP2AgainstNetHTTP(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		query       string
		body        int
		conns       int
		streams     int
		requests    int64
		minRead     int64 // bytes read at least
		wantBodyMax int64
	}{
		{"GET on one stream", "GET", "", 0, 2, 1, 200, 200 * 10, 0},
		{"HEAD has no body", "HEAD", "", 0, 1, 4, 50, 0, 0},
		{"POST with an empty body", "POST", "", 0, 2, 2, 100, 100 * 10, 0},
		{"POST with 100 KB bodies, past the 64 KB initial window", "POST", "", 100 << 10, 2, 4, 40, 40 * 10, 100 << 10},
		{"POST with a 10 MB body", "POST", "", 10 << 20, 1, 2, 3, 3 * 10, 10 << 20},
		{"many streams on few connections", "GET", "", 0, 4, 100, 4000, 4000 * 10, 0},
		{"responses of 3 MB, past the 1 MB stream window", "GET", "?size=3145728", 0, 2, 3, 12, 12 * 3 << 20, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newH2CServer(t, nil, nil)
			cfg := Config{URL: srv.url + tt.query, Method: tt.method, Connections: tt.conns, HTTP2: true,
				Streams: tt.streams, Requests: tt.requests, Timeout: 10 * time.Second}
			if tt.body > 0 {
				cfg.Body = []byte(strings.Repeat("b", tt.body))
			}
			res := run(t, cfg)
			if res.Requests != tt.requests || res.Status[200] != tt.requests || res.ErrorCount() != 0 {
				t.Fatalf("requests %d, 200s %d, errors %v; want %d, all 200, none", res.Requests, res.Status[200], res.Errors, tt.requests)
			}
			if n := srv.h1.Load(); n != 0 {
				t.Errorf("%d requests arrived over HTTP/1.1", n)
			}
			if got := srv.maxBody.Load(); got != tt.wantBodyMax {
				t.Errorf("largest request body %d bytes, want %d", got, tt.wantBodyMax)
			}
			if res.BytesRead < tt.minRead {
				t.Errorf("read %d bytes, want at least %d", res.BytesRead, tt.minRead)
			}
			if res.Protocol != "h2c" || res.HTTP2 == nil || res.HTTP2.Streams != tt.streams {
				t.Errorf("protocol %q, HTTP2 %+v; want h2c with %d streams", res.Protocol, res.HTTP2, tt.streams)
			}
			if res.Connects != int64(tt.conns) {
				t.Errorf("%d connections opened, want %d (no reconnects)", res.Connects, tt.conns)
			}
		})
	}
}

// TestHTTP2StreamsStayWithinTheServersLimit: -m above the server's
// SETTINGS_MAX_CONCURRENT_STREAMS is cut to it, and -m streams are kept
// busy on each connection.
func TestHTTP2StreamsStayWithinTheServersLimit(t *testing.T) {
	tests := []struct {
		name       string
		serverMax  int
		streams    int
		wantActive int64
	}{
		{"the client's -m when the server allows more", 250, 8, 8},
		{"the server's limit when -m asks for more", 3, 50, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var active, peak atomic.Int64
			release := make(chan struct{})
			srv := newH2CServer(t, &http.HTTP2Config{MaxConcurrentStreams: tt.serverMax}, func(w http.ResponseWriter, r *http.Request) {
				n := active.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				select {
				case <-release:
				case <-time.After(20 * time.Millisecond):
				}
				active.Add(-1)
				w.Write([]byte("ok"))
			})
			res := run(t, Config{URL: srv.url, Connections: 1, HTTP2: true, Streams: tt.streams, Requests: 200, Timeout: 10 * time.Second})
			close(release)
			if res.Requests != 200 || res.ErrorCount() != 0 {
				t.Fatalf("requests %d errors %v", res.Requests, res.Errors)
			}
			if got := peak.Load(); got != tt.wantActive {
				t.Errorf("at most %d requests at once on the server, want %d", got, tt.wantActive)
			}
		})
	}
}

// TestHTTP2OpenModelSeesStalls is TestOpenModelSeesStalls over HTTP/2: a
// server that stalls for 1 s every 3 s shows in the open model's p90 and
// not in a closed run at low concurrency.
func TestHTTP2OpenModelSeesStalls(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 12 s")
	}
	start := time.Now()
	srv := newH2CServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		if phase := time.Since(start) % (3 * time.Second); phase < time.Second {
			select {
			case <-time.After(time.Second - phase):
			case <-r.Context().Done():
				return
			}
		}
		w.Write([]byte("Hello, Go!"))
	})
	open := run(t, Config{URL: srv.url, Connections: 2, HTTP2: true, Streams: 100, Rate: 500, Duration: 6 * time.Second})
	closed := run(t, Config{URL: srv.url, Connections: 1, HTTP2: true, Streams: 2, Duration: 6 * time.Second})
	openP90 := time.Duration(open.Latency.ValueAtQuantile(90)) * time.Microsecond
	closedP90 := time.Duration(closed.Latency.ValueAtQuantile(90)) * time.Microsecond
	t.Logf("open model p90 %s (late %d, %d requests), closed model p90 %s (%d requests)", openP90, open.Late, open.Requests, closedP90, closed.Requests)
	if openP90 < 200*time.Millisecond {
		t.Errorf("open model p90 = %s, want hundreds of ms: the stalls must show", openP90)
	}
	if closedP90 > 50*time.Millisecond {
		t.Errorf("closed model p90 = %s, want small: the closed model hides the stalls", closedP90)
	}
	if open.ErrorCount() != 0 || closed.ErrorCount() != 0 {
		t.Errorf("errors: open %v, closed %v", open.Errors, closed.Errors)
	}
}

// h2Errors formats a result's HTTP/2 counts for failure messages.
func h2Errors(r *result.Result) string {
	if r.HTTP2 == nil {
		return fmt.Sprint(r.Errors)
	}
	return fmt.Sprintf("errors %v resets %v goaways %v retried %d", r.Errors, r.HTTP2.Resets, r.HTTP2.GoAways, r.HTTP2.Retried)
}

// TestHTTP2OverTLS: an https:// URL with HTTP2 offers h2 by ALPN and
// speaks HTTP/2 on what the server agreed to; a run offering both
// protocols speaks the one the server picks.
func TestHTTP2OverTLS(t *testing.T) {
	var h1, h2 atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		} else {
			h1.Add(1)
		}
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("Hello, Go!"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tests := []struct {
		name       string
		cfg        Config
		wantH2     int64
		wantProto  string
		wantALPNh2 bool
	}{
		{"--http2 offers h2 and speaks it", Config{HTTP2: true, Streams: 10, Method: "POST", Body: []byte("body")}, 300, "h2", true},
		{"offering h2 and http/1.1, the server picks h2", Config{TLS: TLSConfig{NextProtos: []string{"h2", "http/1.1"}}}, 300, "", true},
		{"a plain https run stays HTTP/1.1", Config{}, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h1.Store(0)
			h2.Store(0)
			cfg := tt.cfg
			cfg.URL, cfg.Connections, cfg.Requests, cfg.TLS.Insecure = srv.URL+"/", 2, 300, true
			res := run(t, cfg)
			if res.Requests != 300 || res.ErrorCount() != 0 {
				t.Fatalf("requests %d, %s", res.Requests, h2Errors(res))
			}
			if h2.Load() != tt.wantH2 || h1.Load() != 300-tt.wantH2 {
				t.Errorf("server saw %d HTTP/2 and %d HTTP/1.1 requests, want %d HTTP/2", h2.Load(), h1.Load(), tt.wantH2)
			}
			if res.Protocol != tt.wantProto {
				t.Errorf("protocol %q, want %q", res.Protocol, tt.wantProto)
			}
			if got := res.TLS != nil && res.TLS.ALPN["h2"] > 0; got != tt.wantALPNh2 {
				t.Errorf("ALPN counts %v, want h2 negotiated %v", res.TLS, tt.wantALPNh2)
			}
		})
	}
}
