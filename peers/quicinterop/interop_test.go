package quicinterop

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"testing"
	"time"

	gq "github.com/gust-http/gust/internal/quic"
	"github.com/quic-go/quic-go"
)

const alpn = "gust-test"

// selfSigned returns a certificate for "localhost" and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// echoServer runs quic-go on 127.0.0.1: every stream of every connection
// is echoed back and closed.
func echoServer(t *testing.T, cert tls.Certificate) *net.UDPAddr {
	t.Helper()
	ln, err := quic.ListenAddr("127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{cert}, NextProtos: []string{alpn},
	}, &quic.Config{MaxIdleTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			go func() {
				for {
					s, err := conn.AcceptStream(context.Background())
					if err != nil {
						return
					}
					go func() {
						io.Copy(s, s)
						s.Close()
					}()
				}
			}()
		}
	}()
	return ln.Addr().(*net.UDPAddr)
}

// driver runs a gust Conn over a UDP socket until done reports true.
type driver struct {
	t     *testing.T
	c     *gq.Conn
	udp   *net.UDPConn
	peer  *net.UDPAddr
	out   []byte
	in    []byte
	onEv  func(gq.Event)
	until time.Time
}

func (d *driver) run(what string, done func() bool) {
	d.t.Helper()
	for !done() {
		now := time.Now()
		if now.After(d.until) {
			d.t.Fatalf("%s: timed out; conn error %v", what, d.c.Err())
		}
		for {
			b, ok := d.c.AppendDatagram(d.out[:0], now)
			if !ok {
				break
			}
			if _, err := d.udp.WriteToUDP(b, d.peer); err != nil {
				d.t.Fatal(err)
			}
		}
		for ev := d.c.NextEvent(); ev.Kind != gq.EventNone; ev = d.c.NextEvent() {
			if ev.Kind == gq.EventConnClosed {
				d.t.Fatalf("%s: connection closed: %v", what, ev.Err)
			}
			if d.onEv != nil {
				d.onEv(ev)
			}
		}
		if done() {
			return
		}
		wait := now.Add(100 * time.Millisecond)
		if to := d.c.NextTimeout(); !to.IsZero() && to.Before(wait) {
			wait = to
		}
		d.udp.SetReadDeadline(wait)
		n, _, err := d.udp.ReadFromUDP(d.in)
		switch {
		case err == nil:
			d.c.Receive(d.in[:n], time.Now())
		case errors.Is(err, os.ErrDeadlineExceeded):
			d.c.OnTimeout(time.Now())
		default:
			d.t.Fatal(err)
		}
	}
}

func TestEchoAgainstQuicGo(t *testing.T) {
	cert, pool := selfSigned(t)
	server := echoServer(t, cert)
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	c, err := gq.NewClientConn(&gq.Config{TLSConfig: &tls.Config{
		ServerName: "localhost", RootCAs: pool, NextProtos: []string{alpn},
	}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, c: c, udp: udp, peer: server, out: make([]byte, 0, 2048),
		in: make([]byte, 65536), until: time.Now().Add(20 * time.Second)}
	d.run("handshake", c.HandshakeComplete)
	if p := c.ConnectionState().NegotiatedProtocol; p != alpn {
		t.Fatalf("ALPN %q", p)
	}

	const streams = 4
	want := make([][]byte, streams)
	ids := make([]uint64, streams)
	got := map[uint64][]byte{}
	fins := map[uint64]bool{}
	buf := make([]byte, 16<<10)
	d.onEv = func(ev gq.Event) {
		if ev.Kind != gq.EventStreamReadable {
			return
		}
		for {
			n, fin, err := c.Read(ev.StreamID, buf)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			got[ev.StreamID] = append(got[ev.StreamID], buf[:n]...)
			if fin {
				fins[ev.StreamID] = true
			}
			if fin || n == 0 {
				return
			}
		}
	}
	for i := range want {
		want[i] = bytes.Repeat([]byte{byte('a' + i)}, 100_000+i)
		if ids[i], err = c.OpenStream(false); err != nil {
			t.Fatal(err)
		}
	}
	rest := append([][]byte(nil), want...)
	d.run("echo", func() bool {
		for i, id := range ids {
			if len(rest[i]) == 0 {
				continue
			}
			n, err := c.Write(id, rest[i])
			if err != nil {
				t.Fatal(err)
			}
			if rest[i] = rest[i][n:]; len(rest[i]) == 0 {
				c.CloseWrite(id)
			}
		}
		return len(fins) == streams
	})
	for i, id := range ids {
		if !bytes.Equal(got[id], want[i]) {
			t.Errorf("stream %d: %d bytes back, want %d", id, len(got[id]), len(want[i]))
		}
	}

	if err := c.UpdateKeys(); err != nil {
		t.Fatalf("key update: %v", err)
	}
	id, err := c.OpenStream(false)
	if err != nil {
		t.Fatal(err)
	}
	c.Write(id, []byte("after the key update"))
	c.CloseWrite(id)
	d.run("echo after a key update", func() bool { return fins[id] })
	if string(got[id]) != "after the key update" {
		t.Errorf("after the key update: %q", got[id])
	}

	c.Close(0, "done", time.Now())
	b, ok := c.AppendDatagram(d.out[:0], time.Now())
	if !ok {
		t.Fatal("no CONNECTION_CLOSE to send")
	}
	udp.WriteToUDP(b, server)
}
