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

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

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

// served counts the requests the servers of serveOn answered.
var served atomic.Int64

// serveOn runs the peer's HTTP/3 server on a quic.Transport of its own
// over pc, so that a test can ask for a Retry or a stateless reset key.
func serveOn(t *testing.T, pc net.PacketConn, tr *quic.Transport) {
	t.Helper()
	tc, err := peer.TLSConfig("quicgo", peer.Flags{TLS: peer.TLSFlags{SelfSigned: true}}, "h3")
	if err != nil {
		t.Fatal(err)
	}
	h := handler(peer.Flags{}, 0)
	srv := newServer(tc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		h.ServeHTTP(w, r)
	}))
	ln, err := tr.ListenEarly(http3.ConfigureTLSConfig(tc), srv.QUICConfig)
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeListener(ln)
	t.Cleanup(func() { srv.Close(); ln.Close() })
}

// A server that validates every address first (a Retry before each
// handshake): the connections follow it, and the report counts them.
func TestGustLoadFollowsARetry(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &quic.Transport{Conn: pc, VerifySourceAddress: func(net.Addr) bool { return true }}
	t.Cleanup(func() { tr.Close() })
	serveOn(t, pc, tr)
	res := runH3(t, load.Config{URL: "https://" + pc.LocalAddr().String() + "/", Connections: 3, Streams: 4, Requests: 600, Loops: 1})
	if res.Status[200] != 600 || res.ErrorCount() != 0 {
		t.Errorf("status %v, errors %v; want 600 answered", res.Status, res.Errors)
	}
	if res.QUIC.Retried != res.QUIC.Handshakes() || res.QUIC.Retried < 3 {
		t.Errorf("%d of %d handshakes after a Retry; want every one", res.QUIC.Retried, res.QUIC.Handshakes())
	}
}

// A server that restarts without its connections' state answers their
// next packets with a stateless reset: the run counts the resets, opens
// new connections and goes on. Streams in flight on each connection keep
// the rate when a busy machine makes each request slow.
func TestGustLoadSurvivesAStatelessReset(t *testing.T) {
	var key quic.StatelessResetKey
	copy(key[:], "a key both server processes share")
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	first := &quic.Transport{Conn: pc, StatelessResetKey: &key}
	serveOn(t, pc, first)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan *result.Result, 1)
	go func() {
		res, err := load.Run(ctx, load.Config{URL: "https://" + addr + "/", HTTP3: true, TLS: load.TLSConfig{Insecure: true},
			Connections: 2, Streams: 8, Rate: 400, Duration: 3 * time.Second, Loops: 1, Timeout: 2 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// Wait for requests to flow, then drop the server's state at once:
	// the socket closes under its connections, and a new process (a new
	// transport) takes the port with the same reset key.
	deadline := time.Now().Add(10 * time.Second)
	for start := served.Load(); served.Load()-start < 100 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // polls the handler's count, with a deadline
	}
	before := served.Load()
	pc.Close()
	pc2, err := net.ListenPacket("udp", addr)
	t.Logf("swapped at %d served", before)
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, pc2, &quic.Transport{Conn: pc2, StatelessResetKey: &key})
	res := <-done
	if res == nil {
		t.FailNow()
	}
	t.Logf("served %d; status %v, errors %v, closes %v, handshakes %d", served.Load(), res.Status, res.Errors, res.QUIC.Closes, res.QUIC.Handshakes())
	if res.QUIC.Closes["stateless_reset"] == 0 {
		t.Errorf("closes %v; want the stateless resets counted", res.QUIC.Closes)
	}
	if res.QUIC.Handshakes() < 4 || res.Status[200] < 1000 {
		t.Errorf("%d handshakes, %v answered; want new connections that carry on", res.QUIC.Handshakes(), res.Status)
	}
	if res.ErrorCount() > 10 {
		t.Errorf("errors %v: only the requests in flight at the reset may fail", res.Errors)
	}
}

// The generator updating its 1-RTT keys every 64 packets: quic-go's
// server follows every update, and every request is answered.
func TestGustLoadUpdatesKeysWithQuicGo(t *testing.T) {
	t.Setenv("GUST_QUIC_KEY_UPDATE", "64")
	url := serve(t, 1024)
	res := runH3(t, load.Config{URL: url, Connections: 2, Streams: 8, Requests: 4000, Loops: 1})
	if res.Status[200] != 4000 || res.ErrorCount() != 0 || len(res.QUIC.Closes) != 0 {
		t.Errorf("status %v, errors %v, closes %v; want 4000 answered across the key updates", res.Status, res.Errors, res.QUIC.Closes)
	}
	if res.QUIC.PacketsSent < 64*4 {
		t.Errorf("%d packets sent: too few for the keys to have been updated", res.QUIC.PacketsSent)
	}
}
