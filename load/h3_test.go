package load

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// h3Config is a run of n requests over HTTP/3 to url.
func h3Config(url string, conns, streams, n int) Config {
	return Config{URL: url, HTTP3: true, Connections: conns, Streams: streams, Requests: int64(n), Loops: 2,
		Timeout: 5 * time.Second, TLS: TLSConfig{Insecure: true}}
}

// Every misbehaviour of a server ends what it touches with the error
// the RFCs name, counted by kind, while the run goes on and ends.
func TestHTTP3AgainstMisbehavingServers(t *testing.T) {
	tests := []struct {
		name   string
		opts   h3TestOptions
		n      int
		check  func(t *testing.T, res *result.Result, served int)
		closes string // a QUIC close the run must count
	}{
		{
			name: "a well-behaved server: every request answered on the first connections",
			n:    3000,
			check: func(t *testing.T, res *result.Result, served int) {
				if res.Status[200] != 3000 || res.ErrorCount() != 0 || res.QUIC.Handshakes() != 4 || res.Reconnects != 0 {
					t.Errorf("status %v, errors %v, handshakes %d, reconnects %d; want 3000 answered on 4 connections",
						res.Status, res.Errors, res.QUIC.Handshakes(), res.Reconnects)
				}
			},
		},
		{
			name: "unknown frame and stream types are ignored",
			opts: h3TestOptions{unknownFrames: true},
			n:    500,
			check: func(t *testing.T, res *result.Result, served int) {
				if res.Status[200] != 500 || res.ErrorCount() != 0 {
					t.Errorf("status %v, errors %v; want 500 answered", res.Status, res.Errors)
				}
			},
		},
		{
			name: "GOAWAY: requests the server never processed are sent again on new connections",
			opts: h3TestOptions{goAwayAfter: 50},
			n:    1000,
			check: func(t *testing.T, res *result.Result, served int) {
				if res.Status[200] != 1000 || res.ErrorCount() != 0 {
					t.Errorf("status %v, errors %v; want all 1000 answered", res.Status, res.Errors)
				}
				if res.QUIC.Handshakes() < 1000/50 {
					t.Errorf("%d handshakes; a server going away every 50 requests needs at least 20", res.QUIC.Handshakes())
				}
				if res.QUIC.Resumed < res.QUIC.Handshakes()/2 {
					t.Errorf("%d of %d handshakes resumed; the server's tickets should make most of them resume", res.QUIC.Resumed, res.QUIC.Handshakes())
				}
				checkGoAwaysCounted(t, res)
			},
		},
		{
			name: "a second GOAWAY with a lower ID: the requests at or above it are sent again",
			opts: h3TestOptions{goAwayAfter: 50, goAwayTwice: true},
			n:    1000,
			check: func(t *testing.T, res *result.Result, served int) {
				if res.Status[200] != 1000 || res.ErrorCount() != 0 {
					t.Errorf("status %v, errors %v; want all 1000 answered", res.Status, res.Errors)
				}
			},
		},
		{
			name: "reset streams are counted alone; the connection goes on",
			opts: h3TestOptions{resetEvery: 10},
			n:    1000,
			check: func(t *testing.T, res *result.Result, served int) {
				resets := res.Errors[result.ErrStreamReset]
				if resets == 0 || res.Status[200]+resets != 1000 || res.ErrorCount() != resets {
					t.Errorf("status %v, errors %v; want 1000 split between 200 and stream_reset", res.Status, res.Errors)
				}
				if res.QUIC.Handshakes() != 4 {
					t.Errorf("%d handshakes: a stream reset must not close its connection", res.QUIC.Handshakes())
				}
			},
		},
		{
			name: "a malformed answer fails its stream as a protocol error",
			opts: h3TestOptions{badHeader: true},
			n:    200,
			check: func(t *testing.T, res *result.Result, served int) {
				if res.Errors[result.ErrProtocol] != 200 || res.Status[200] != 0 {
					t.Errorf("status %v, errors %v; want 200 protocol errors", res.Status, res.Errors)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := startH3TestServer(t, tt.opts)
			res := run(t, h3Config(url, 4, 8, tt.n))
			served, _ := srv.counts()
			if res.QUIC == nil {
				t.Fatal("an HTTP/3 run without its QUIC section")
			}
			tt.check(t, res, served)
		})
	}
}

// A server that closes every connection in its handshake makes the run
// fail fast, before it starts, with the reason in one line.
func TestHTTP3HandshakeRefusedFailsFast(t *testing.T) {
	_, url := startH3TestServer(t, h3TestOptions{refuse: true})
	_, err := Run(context.Background(), h3Config(url, 2, 1, 10))
	if err == nil || !strings.Contains(err.Error(), "QUIC handshake") || !strings.Contains(err.Error(), "closed by peer") {
		t.Fatalf("Run: %v; want the handshake the server closed said", err)
	}
}

// Certificates are checked as for https://: a self-signed server is
// refused with the reason and what to do.
func TestHTTP3ChecksTheCertificate(t *testing.T) {
	_, url := startH3TestServer(t, h3TestOptions{})
	cfg := h3Config(url, 1, 1, 10)
	cfg.TLS.Insecure = false
	cfg.TLS.ServerName = "localhost" // the name it is for: only its signer is unknown
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "unknown authority") || !strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("Run: %v; want the unknown authority named, and --insecure offered", err)
	}
}

// Nothing listening on the UDP port: the probe says so.
func TestHTTP3NothingListening(t *testing.T) {
	srv, url := startH3TestServer(t, h3TestOptions{})
	srv.udp.Close()
	_, err := Run(context.Background(), h3Config(url, 1, 1, 10))
	if err == nil || !strings.Contains(err.Error(), "QUIC handshake") {
		t.Fatalf("Run: %v; want the failed QUIC handshake said", err)
	}
}

// Configurations HTTP/3 cannot run are refused with a reason.
func TestHTTP3ConfigRefusals(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://127.0.0.1:1/", HTTP3: true, Requests: 1}, "https://"},
		{Config{URL: "https://127.0.0.1:1/", HTTP3: true, Requests: 1, HTTP2: true}, "one protocol"},
		{Config{URL: "https://127.0.0.1:1/", HTTP3: true, Requests: 1, Pipeline: 4}, "-m"},
		{Config{URL: "https://127.0.0.1:1/", HTTP3: true, Requests: 1, DisableKeepAlive: true}, "keeps its connections"},
		{Config{URL: "https://127.0.0.1:1/", HTTP3: true, Requests: 1, SSE: true}, "HTTP/1.1 or HTTP/2"},
		{Config{URL: "wss://127.0.0.1:1/", HTTP3: true, Requests: 1}, "WebSocket"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want an error saying %q", tt.cfg, err, tt.want)
		}
	}
}

// checkGoAwaysCounted checks that a run against a server that goes away
// every few requests counts, in the QUIC section, a connection ended by
// the GOAWAY for every handshake but the last of each connection, and
// the requests it sent again.
func checkGoAwaysCounted(t *testing.T, res *result.Result) {
	t.Helper()
	conns := int64(res.Connections)
	if n := res.QUIC.Closes[closeGoAway]; n < res.QUIC.Handshakes()-conns || n == 0 {
		t.Errorf("closes %v after %d handshakes on %d connections; want at least %d counted as %q",
			res.QUIC.Closes, res.QUIC.Handshakes(), conns, res.QUIC.Handshakes()-conns, closeGoAway)
	}
	if res.Retried == 0 {
		t.Errorf("retried %d: the requests the server rejected unprocessed were not counted as sent again", res.Retried)
	}
}
