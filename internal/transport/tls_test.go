//go:build linux

package transport

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

var versions = []struct {
	name string
	v    uint16
}{{"TLS 1.2", tls.VersionTLS12}, {"TLS 1.3", tls.VersionTLS13}}

// TestTLSServerAgainstStdlibClient serves requests of several sizes to
// crypto/tls's blocking client, pipelined, and checks what each side sees.
func TestTLSServerAgainstStdlibClient(t *testing.T) {
	ln := newListener(t)
	for _, ver := range versions {
		for _, size := range []int{100, 16 << 10, 300 << 10} {
			t.Run(fmt.Sprintf("%s answers %d-byte responses to pipelined requests", ver.name, size), func(t *testing.T) {
				fd, peer := ln.pair(t)
				defer peer.Close()
				c := NewServerTLS(NewPlain(fd), serverConfig(t, ver.v))
				defer c.Release()
				hs := handshake(c, 5*time.Second)
				client := tls.Client(peer, clientConfig(t, ver.v))
				cerr := make(chan error, 1)
				go func() { cerr <- client.Handshake() }()
				if err := <-hs; err != nil {
					t.Fatalf("server handshake: %v", err)
				}
				if err := <-cerr; err != nil {
					t.Fatalf("client handshake: %v", err)
				}
				st := c.ConnectionState()
				if c.NegotiatedProtocol() != "http/1.1" || c.Version() != ver.v || !st.HandshakeComplete || st.ServerName != "localhost" {
					t.Fatalf("state: proto %q version %x complete %v sni %q", c.NegotiatedProtocol(), c.Version(), st.HandshakeComplete, st.ServerName)
				}
				if c.CipherSuite() != client.ConnectionState().CipherSuite {
					t.Fatalf("cipher suites differ: %x and %x", c.CipherSuite(), client.ConnectionState().CipherSuite)
				}

				const requests = 3
				req := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				resp := bytes.Repeat([]byte("r"), size)
				go func() {
					// One write: the records arrive together, so Buffered matters.
					client.Write(bytes.Repeat(req, requests))
					buf := make([]byte, size)
					for i := 0; i < requests; i++ {
						if _, err := io.ReadFull(client, buf); err != nil || !bytes.Equal(buf, resp) {
							cerr <- fmt.Errorf("response %d: %v", i, err)
							return
						}
					}
					cerr <- nil
				}()
				buf := make([]byte, len(req))
				for i := 0; i < requests; i++ {
					if got := readN(t, c, buf, len(req)); !bytes.Equal(got, req) {
						t.Fatalf("request %d = %q", i, got)
					}
					writeAll(t, c, resp)
				}
				if err := <-cerr; err != nil {
					t.Fatal(err)
				}
				if c.Buffered() != 0 || c.Pending() != 0 {
					t.Fatalf("after the exchange: Buffered %d, Pending %d", c.Buffered(), c.Pending())
				}
			})
		}
	}
}

// TestTLSClientAgainstStdlibServer sends requests to crypto/tls's blocking
// server and reads its responses, then both sides close with close_notify.
func TestTLSClientAgainstStdlibServer(t *testing.T) {
	ln := newListener(t)
	for _, ver := range versions {
		t.Run(ver.name+" client reads responses and sees close_notify as EOF", func(t *testing.T) {
			fd, peer := ln.pair(t)
			defer peer.Close()
			server := tls.Server(peer, serverConfig(t, ver.v))
			resp := bytes.Repeat([]byte("s"), 20<<10)
			serr := make(chan error, 1)
			go func() {
				buf := make([]byte, 5)
				if _, err := io.ReadFull(server, buf); err != nil {
					serr <- err
					return
				}
				server.Write(resp)
				// Our close_notify reaches the server as EOF.
				if _, err := server.Read(buf); err != io.EOF {
					serr <- fmt.Errorf("server read after close_notify: %v", err)
					return
				}
				serr <- server.CloseWrite()
			}()
			c := NewClientTLS(NewPlain(fd), clientConfig(t, ver.v))
			defer c.Release()
			if err := <-handshake(c, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			writeAll(t, c, []byte("hello"))
			small := make([]byte, 1000) // shorter than a record: kept plaintext
			got := make([]byte, 0, len(resp))
			for len(got) < len(resp) {
				b := readN(t, c, small, min(len(small), len(resp)-len(got)))
				got = append(got, b...)
			}
			if !bytes.Equal(got, resp) {
				t.Fatal("response differs")
			}
			if err := c.CloseNotify(); err != nil {
				t.Fatalf("CloseNotify: %v", err)
			}
			if err := <-serr; err != nil {
				t.Fatal(err)
			}
			for {
				_, err := c.Read(small)
				if errors.Is(err, ErrWouldBlock) {
					waitFD(t, fd, 1)
					continue
				}
				if err != io.EOF {
					t.Fatalf("Read after the server's close_notify: %v, want io.EOF", err)
				}
				break
			}
			if _, err := c.Write([]byte("x")); err == nil {
				t.Fatal("Write after CloseNotify succeeded")
			}
		})
	}
}

// holdConn holds a client's writes after the first and sends them in one
// write, so that a TLS 1.3 client's Finished and first request arrive together.
type holdConn struct {
	net.Conn
	writes int
	held   []byte
}

func (h *holdConn) Write(p []byte) (int, error) {
	h.writes++
	if h.writes == 1 {
		return h.Conn.Write(p)
	}
	h.held = append(h.held, p...)
	return len(p), nil
}

func TestTLSKeepsTheRequestThatCameWithTheHandshake(t *testing.T) {
	ln := newListener(t)
	fd, peer := ln.pair(t)
	defer peer.Close()
	c := NewServerTLS(NewPlain(fd), serverConfig(t, tls.VersionTLS13))
	defer c.Release()
	hs := handshake(c, 5*time.Second)
	hold := &holdConn{Conn: peer}
	client := tls.Client(hold, clientConfig(t, tls.VersionTLS13))
	if err := client.Handshake(); err != nil {
		t.Fatal(err)
	}
	req := "GET /early HTTP/1.1\r\n\r\n"
	client.Write([]byte(req))
	if _, err := peer.Write(hold.held); err != nil {
		t.Fatal(err)
	}
	if err := <-hs; err != nil {
		t.Fatal(err)
	}
	if c.Buffered() == 0 {
		t.Fatal("Buffered() = 0 after a handshake whose last flight carried a request")
	}
	buf := make([]byte, 100)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != req {
		t.Fatalf("Read = %q, %v; want the early request", buf[:n], err)
	}
	if c.Buffered() != 0 {
		t.Fatalf("Buffered() = %d after reading everything", c.Buffered())
	}
}

func TestTLSHandshakeFailures(t *testing.T) {
	ln := newListener(t)
	tests := []struct {
		name  string
		send  []byte // what the peer sends, then it stalls
		check func(error) bool
		want  string
	}{
		{"plain HTTP is ErrNotTLS", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
			func(err error) bool { return errors.Is(err, ErrNotTLS) }, "ErrNotTLS"},
		{"half a ClientHello stalls until the deadline", []byte{0x16, 3, 1, 0, 200, 1, 0},
			func(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }, "os.ErrDeadlineExceeded"},
		{"garbage after a handshake type byte is a tls error", append([]byte{0x16, 0x7f, 0x7f, 0, 10}, make([]byte, 10)...),
			func(err error) bool { return err != nil && !errors.Is(err, ErrNotTLS) }, "a crypto/tls error"},
		{"a client that vanishes mid-handshake", []byte{0x16, 3, 1},
			func(err error) bool { return err != nil && !errors.Is(err, ErrNotTLS) }, "an error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd, peer := ln.pair(t)
			defer peer.Close()
			c := NewServerTLS(NewPlain(fd), serverConfig(t, tls.VersionTLS13))
			defer c.Release()
			start := time.Now()
			hs := handshake(c, 300*time.Millisecond)
			peer.Write(tt.send)
			if strings.Contains(tt.name, "vanishes") {
				peer.Close()
			}
			err := <-hs
			if !tt.check(err) {
				t.Fatalf("handshake error = %v; want %s", err, tt.want)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("handshake took %v", time.Since(start))
			}
			if done, derr := c.HandshakeDone(); !done || derr != err {
				t.Fatalf("HandshakeDone = %v, %v", done, derr)
			}
			if _, rerr := c.Read(make([]byte, 10)); rerr != err {
				t.Fatalf("Read after a failed handshake = %v; want the handshake's error", rerr)
			}
			if errors.Is(err, ErrNotTLS) {
				const answer = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
				writeAll(t, c.Inner(), []byte(answer))
				buf := make([]byte, len(answer))
				peer.SetReadDeadline(time.Now().Add(5 * time.Second))
				if _, err := io.ReadFull(peer, buf); err != nil || string(buf) != answer {
					t.Fatalf("peer read %q, %v", buf, err)
				}
			}
		})
	}
}

func TestTLSReleaseStopsAHandshakeWithoutCallingBack(t *testing.T) {
	ln := newListener(t)
	fd, peer := ln.pair(t)
	defer peer.Close()
	c := NewServerTLS(NewPlain(fd), serverConfig(t, tls.VersionTLS13))
	called := make(chan struct{}, 1)
	if err := c.Handshake(time.Time{}, func(*TLS) { called <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	if err := c.Handshake(time.Time{}, nil); !errors.Is(err, ErrHandshakeStarted) {
		t.Fatalf("second Handshake = %v", err)
	}
	// The handshake waits for its peer's ClientHello: it gave its place
	// in the gate up.
	waitGateIdle(t)
	c.Release()
	deadline := time.Now().Add(5 * time.Second)
	for {
		done, err := c.HandshakeDone()
		if done {
			if !errors.Is(err, ErrReleased) {
				t.Fatalf("handshake error after Release = %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the handshake goroutine did not end after Release")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-called:
		t.Fatal("callback called after Release")
	case <-time.After(20 * time.Millisecond):
	}
}

func TestTLSResumes(t *testing.T) {
	ln := newListener(t)
	for _, ver := range versions {
		t.Run(ver.name+" second connection resumes", func(t *testing.T) {
			scfg := serverConfig(t, ver.v)
			ccfg := clientConfig(t, ver.v)
			ccfg.ClientSessionCache = tls.NewLRUClientSessionCache(16)
			for i, wantResumed := range []bool{false, true, true} {
				a, b := ln.rawPair(t)
				s := NewServerTLS(NewPlain(a), scfg)
				c := NewClientTLS(NewPlain(b), ccfg)
				hs, hc := handshake(s, 5*time.Second), handshake(c, 5*time.Second)
				if err := <-hs; err != nil {
					t.Fatal(err)
				}
				if err := <-hc; err != nil {
					t.Fatal(err)
				}
				if c.DidResume() != wantResumed || s.DidResume() != wantResumed {
					t.Fatalf("connection %d: client resumed %v, server %v; want %v", i, c.DidResume(), s.DidResume(), wantResumed)
				}
				// A round trip: a TLS 1.3 client takes its tickets in Read.
				roundTrip(t, c, s, []byte("ping"), []byte("pong"), make([]byte, 64))
				if ver.v == tls.VersionTLS13 {
					// Both sides have handed their records over by now (the
					// client once its ticket was stored); the sequence
					// numbers carried over hold for more round trips.
					if c.d == nil || s.d == nil {
						t.Fatalf("connection %d: records handed over: client %v, server %v", i, c.d != nil, s.d != nil)
					}
					for range 3 {
						roundTrip(t, c, s, []byte("ping"), []byte("pong"), make([]byte, 64))
					}
				}
				s.Release()
				c.Release()
			}
		})
	}
}

// roundTrip sends req from c to s and resp back.
func roundTrip(t testing.TB, c, s Conn, req, resp, buf []byte) {
	writeAll(t, c, req)
	readN(t, s, buf, len(req))
	writeAll(t, s, resp)
	readN(t, c, buf, len(resp))
}

func TestTLSManyHandshakesAtOnce(t *testing.T) {
	ln := newListener(t)
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := 0; i < n; i++ {
		a, b := ln.rawPair(t)
		s := NewServerTLS(NewPlain(a), serverConfig(t, tls.VersionTLS13))
		c := NewClientTLS(NewPlain(b), clientConfig(t, tls.VersionTLS13))
		wg.Add(2)
		for _, x := range []*TLS{s, c} {
			x.Handshake(time.Now().Add(10*time.Second), func(x *TLS) {
				_, err := x.HandshakeDone()
				errs <- err
				wg.Done()
			})
		}
		defer s.Release()
		defer c.Release()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
