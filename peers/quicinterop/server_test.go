package quicinterop

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	gq "github.com/gust-http/gust/internal/quic"
	"github.com/quic-go/quic-go"
)

// TestServerAgainstQuicGo runs gust's Conn as the server, echoing every
// stream, for a quic-go client on loopback.
func TestServerAgainstQuicGo(t *testing.T) {
	cert, pool := selfSigned(t)
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()

	const streams = 3
	type result struct {
		got [][]byte
		err error
	}
	done := make(chan result, 1)
	want := func(i int) []byte { return bytes.Repeat([]byte{byte('A' + i)}, 50_000+i) }
	go func() {
		var r result
		defer func() { done <- r }()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		conn, err := quic.DialAddr(ctx, udp.LocalAddr().String(), &tls.Config{
			ServerName: "localhost", RootCAs: pool, NextProtos: []string{alpn},
		}, &quic.Config{MaxIdleTimeout: 10 * time.Second})
		if err != nil {
			r.err = err
			return
		}
		defer conn.CloseWithError(0, "")
		for i := range streams {
			s, err := conn.OpenStreamSync(ctx)
			if err != nil {
				r.err = err
				return
			}
			go func() { s.Write(want(i)); s.Close() }()
			b, err := io.ReadAll(s)
			if err != nil {
				r.err = err
				return
			}
			r.got = append(r.got, b)
		}
	}()

	buf := make([]byte, 65536)
	out := make([]byte, 0, 2048)
	udp.SetReadDeadline(time.Now().Add(15 * time.Second))
	n, peer, err := udp.ReadFromUDP(buf)
	if err != nil {
		t.Fatal(err)
	}
	h, err := gq.ParseLongHeader(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	c, err := gq.NewServerConn(&gq.Config{TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{cert}, NextProtos: []string{alpn},
	}}, h.DstConnID, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c.Receive(buf[:n], time.Now())
	rbuf := make([]byte, 16<<10)
	pending := map[uint64][]byte{}
	finished := map[uint64]bool{}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("quic-go client: %v", r.err)
			}
			for i, b := range r.got {
				if !bytes.Equal(b, want(i)) {
					t.Errorf("stream %d: %d bytes echoed, want %d", i, len(b), len(want(i)))
				}
			}
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out; conn error %v", c.Err())
		}
		for ev := c.NextEvent(); ev.Kind != gq.EventNone; ev = c.NextEvent() {
			if ev.Kind == gq.EventConnClosed {
				continue
			}
			if ev.Kind != gq.EventStreamReadable {
				continue
			}
			for {
				n, fin, err := c.Read(ev.StreamID, rbuf)
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				pending[ev.StreamID] = append(pending[ev.StreamID], rbuf[:n]...)
				if fin {
					finished[ev.StreamID] = true
				}
				if fin || n == 0 {
					break
				}
			}
		}
		for id, rest := range pending {
			if len(rest) > 0 {
				k, err := c.Write(id, rest)
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				pending[id] = rest[k:]
			}
			if len(pending[id]) == 0 && finished[id] {
				c.CloseWrite(id)
				delete(pending, id)
			}
		}
		now := time.Now()
		for {
			b, ok := c.AppendDatagram(out[:0], now)
			if !ok {
				break
			}
			udp.WriteToUDP(b, peer)
		}
		wait := now.Add(20 * time.Millisecond)
		if to := c.NextTimeout(); !to.IsZero() && to.Before(wait) {
			wait = to
		}
		udp.SetReadDeadline(wait)
		n, _, err := udp.ReadFromUDP(buf)
		switch {
		case err == nil:
			c.Receive(buf[:n], time.Now())
		case errors.Is(err, os.ErrDeadlineExceeded):
			c.OnTimeout(time.Now())
		default:
			t.Fatal(err)
		}
	}
}
