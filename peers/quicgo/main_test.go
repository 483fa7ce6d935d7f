package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/result"
)

// serve starts the peer's server on a loopback UDP port with a
// self-signed certificate and returns its https:// URL.
func serve(t *testing.T, body int) string {
	t.Helper()
	tc, err := peer.TLSConfig("quicgo", peer.Flags{TLS: peer.TLSFlags{SelfSigned: true}}, "h3")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(tc, handler(peer.Flags{}, body))
	go srv.Serve(pc)
	t.Cleanup(func() { srv.Close(); pc.Close() })
	return "https://" + pc.LocalAddr().String() + "/"
}

// runH3 runs gust load over HTTP/3 against url.
func runH3(t *testing.T, cfg load.Config) *result.Result {
	t.Helper()
	cfg.HTTP3 = true
	cfg.TLS.Insecure = true
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := load.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGustLoadOverHTTP3(t *testing.T) {
	url := serve(t, 0)
	res := runH3(t, load.Config{URL: url, Connections: 4, Streams: 8, Requests: 4000, Loops: 2})
	if res.Requests != 4000 || res.Status[200] != 4000 {
		t.Errorf("requests %d, status %v; want 4000 answered 200", res.Requests, res.Status)
	}
	if n := res.ErrorCount(); n != 0 {
		t.Errorf("errors: %v", res.Errors)
	}
	q := res.QUIC
	if q == nil {
		t.Fatal("no QUIC section")
	}
	t.Logf("quic: %+v closes %v", *q, q.Closes)
	if q.Handshakes() != 4 || len(q.Closes) != 0 {
		t.Errorf("handshakes %d, closes %v; want 4 handshakes and no connection closed early", q.Handshakes(), q.Closes)
	}
}

// POSTs with a 10 KiB body, 100 streams in flight on one connection
// (quic-go's default limit of streams a client may open): every body
// arrives whole, every request is answered.
func TestGustLoadPostsBodiesOverHTTP3(t *testing.T) {
	const size = 10 << 10
	var short atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if r.Method != "POST" || n != size {
			short.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Write([]byte("ok"))
	})
	tc, err := peer.TLSConfig("quicgo", peer.Flags{TLS: peer.TLSFlags{SelfSigned: true}}, "h3")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(tc, h)
	go srv.Serve(pc)
	t.Cleanup(func() { srv.Close(); pc.Close() })
	body := bytes.Repeat([]byte("b"), size)
	res := runH3(t, load.Config{URL: "https://" + pc.LocalAddr().String() + "/upload", Method: "POST", Body: body,
		Connections: 1, Streams: 100, Requests: 3000, Loops: 1})
	if res.Status[200] != 3000 || res.ErrorCount() != 0 || short.Load() != 0 {
		t.Errorf("status %v, errors %v, bodies cut short %d; want 3000 answered 200", res.Status, res.Errors, short.Load())
	}
}
