package server

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/load"
)

// startH3 runs a one-loop Inline server with HTTP/3 answering "hello",
// returns it and its address.
func startH3(t *testing.T, cfg Config) (*Server, *net.UDPAddr) {
	t.Helper()
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTP3 = true
	cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if cfg.Loops == 0 {
		cfg.Loops = 1
	}
	s := &Server{Config: cfg, Handler: HandlerFunc(func(c *Ctx) { c.WriteString("hello") })}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() { s.Close(); <-done })
	tcp := s.Addr().(*net.TCPAddr)
	return s, &net.UDPAddr{IP: tcp.IP, Port: tcp.Port}
}

// clientInitial returns a real client's first datagram: an Initial with
// a ClientHello, padded to 1200 bytes.
func clientInitial(t *testing.T) []byte {
	t.Helper()
	qc := newH3ClientConn(t)
	d, ok := qc.AppendDatagram(nil, time.Now())
	if !ok || len(d) < 1200 {
		t.Fatalf("client Initial: %d bytes, ok %v", len(d), ok)
	}
	qc.Abandon() // crypto/tls's handshake goroutine ends with it
	return d
}

// h3WaitFor polls cond until it holds or the deadline passes.
func h3WaitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A flood of Initials from many source ports, Initial-shaped garbage and
// short-header garbage, beside working HTTP/3 connections: Retry engages
// once many handshakes are in progress, garbage leaves no connection,
// unknown short headers get stateless resets, the handshakes that never
// finish are given up at ReadHeaderTimeout, and every request of the
// working connections is answered.
func TestHTTP3FloodBesideWorkingConnections(t *testing.T) {
	s, addr := startH3(t, Config{Mode: Inline, ReadHeaderTimeout: time.Second})
	url := "https://" + addr.String() + "/"

	work := make(chan error, 1)
	var requests, answered, failed int64
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := load.Run(ctx, load.Config{URL: url, HTTP3: true, TLS: load.TLSConfig{Insecure: true},
			Connections: 8, Streams: 4, Rate: 2000, Duration: 4 * time.Second, Loops: 1, Timeout: 10 * time.Second})
		if err == nil {
			requests, answered, failed = res.Requests, res.Status[200], res.ErrorCount()
			t.Logf("working connections: %d requests in %v, errors %v", res.Requests, res.Duration, res.Errors)
		}
		work <- err
	}()
	// The generator's probe connection, then its 8.
	h3WaitFor(t, "the working connections", 10*time.Second, func() bool { return s.Stats().Accepted >= 9 })

	var socks []*net.UDPConn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	send := func(d []byte) *net.UDPConn {
		c, err := net.DialUDP("udp", nil, addr)
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, c)
		c.Write(d)
		return c
	}
	// Garbage first, while no Retry is asked for: it must leave no state.
	before, accepted := s.Stats().QUICDropped, s.Stats().Accepted
	for range 200 {
		g := make([]byte, 1200)
		rand.Read(g)
		g[0] = 0xc0 // a long header, type Initial
		copy(g[1:5], []byte{0, 0, 0, 1})
		g[5] = 8
		send(g)
	}
	h3WaitFor(t, "garbage dropped", 5*time.Second, func() bool { return s.Stats().QUICDropped >= before+200 })
	if n := s.Stats().Accepted; n != accepted {
		t.Errorf("%d connections accepted after 200 garbage Initials; want the %d before them", n, accepted)
	}
	for range 300 {
		send(clientInitial(t))
	}
	shortSock := send(append([]byte{0x40}, make([]byte, 60)...))
	h3WaitFor(t, "Retry under the flood", 5*time.Second, func() bool { return s.Stats().QUICRetries > 0 })
	shortSock.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 2048)
	n, err := shortSock.Read(buf)
	if err != nil || n == 0 || n >= 61 || buf[0]&0xc0 != 0x40 {
		t.Errorf("stateless reset: %d bytes (first %#x), %v; want a short-header-shaped datagram smaller than the 61 sent", n, buf[0], err)
	}
	if st := s.Stats(); st.QUICConns > 8+h3RetryAbove+1 {
		t.Errorf("%d QUIC connections open under the flood; the Retry gate should hold them near %d", st.QUICConns, 8+h3RetryAbove)
	}

	if err := <-work; err != nil {
		t.Fatal(err)
	}
	if requests < 6000 || answered != requests || failed != 0 {
		t.Errorf("working connections: %d requests, %d answered 200, %d errors; want about 8000, all answered, none failed", requests, answered, failed)
	}
	h3WaitFor(t, "the flood's handshakes given up", 10*time.Second, func() bool { return s.Stats().QUICConns == 0 })
}

// A QPACK blow-up: a small field section that decodes past the server's
// limit (static-table references repeated) is refused with
// H3_EXCESSIVE_LOAD on its stream; the connection goes on serving.
func TestHTTP3QPACKBlowUp(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline, MaxHeaderBytes: 4096})
	c := dialH3Raw(t, addr)
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":method", "GET")
	sec = http3.AppendField(sec, ":scheme", "https")
	sec = http3.AppendField(sec, ":authority", "localhost")
	sec = http3.AppendField(sec, ":path", "/")
	for range 2000 {
		// An indexed field line of the static table's entry 95,
		// "user-agent" with an empty value: one byte that counts 42 of
		// the limit (name, value and 32, RFC 9114 section 4.2.2).
		sec = append(sec, 0xc0|95)
	}
	resp, code := c.request(http3.AppendHeaders(nil, sec))
	if code != uint64(http3.ErrCodeExcessiveLoad) {
		t.Errorf("blown-up section: response %q, reset code %#x; want a reset with H3_EXCESSIVE_LOAD", resp, code)
	}
	ok := http3.AppendSectionPrefix(nil)
	ok = http3.AppendField(ok, ":method", "GET")
	ok = http3.AppendField(ok, ":scheme", "https")
	ok = http3.AppendField(ok, ":authority", "localhost")
	ok = http3.AppendField(ok, ":path", "/")
	resp, code = c.request(http3.AppendHeaders(nil, ok))
	if code != 0 || len(resp) == 0 {
		t.Errorf("the next request on the same connection: %q, reset %#x", resp, code)
	}
}
