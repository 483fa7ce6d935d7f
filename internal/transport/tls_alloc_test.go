//go:build linux

package transport

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tlsPair returns a server and a client TLS of ours, handshaken, on a
// loopback TCP connection.
func tlsPair(t testing.TB, ln *listener, version uint16) (*TLS, *TLS) {
	a, b := ln.rawPair(t)
	s := NewServerTLS(NewPlain(a), serverConfig(t, version))
	c := NewClientTLS(NewPlain(b), clientConfig(t, version))
	hs, hc := handshake(s, 5*time.Second), handshake(c, 5*time.Second)
	if err := <-hs; err != nil {
		t.Fatal(err)
	}
	if err := <-hc; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Release(); c.Release() })
	return s, c
}

// exchange is one keep-alive round trip as two event loops do it, without
// testing.TB calls (they allocate): the client writes req, the server reads
// it into a 4 KiB buffer and answers resp, the client reads it into a
// 64 KiB one.
type exchange struct {
	s, c       *TLS
	req, resp  []byte
	sbuf, cbuf []byte
	pfd        [1]unix.PollFd
	err        error
}

func (e *exchange) run() {
	if e.err = e.write(e.c, e.req); e.err != nil {
		return
	}
	if e.err = e.read(e.s, e.sbuf, len(e.req)); e.err != nil {
		return
	}
	if e.err = e.write(e.s, e.resp); e.err != nil {
		return
	}
	e.err = e.read(e.c, e.cbuf, len(e.resp))
}

func (e *exchange) wait(fd int, events int16) {
	e.pfd[0] = unix.PollFd{Fd: int32(fd), Events: events}
	unix.Poll(e.pfd[:], 5000)
}

func (e *exchange) read(c *TLS, buf []byte, n int) error {
	for got := 0; got < n; {
		k, err := c.Read(buf[:min(len(buf), n-got)])
		got += k
		if errors.Is(err, ErrWouldBlock) {
			e.wait(c.FD(), unix.POLLIN)
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (e *exchange) write(c *TLS, p []byte) error {
	for {
		n, err := c.Write(p)
		p = p[n:]
		if errors.Is(err, ErrWouldBlock) {
			e.wait(c.FD(), unix.POLLOUT)
		} else if err != nil || len(p) == 0 {
			return err
		}
	}
}

func newExchange(t testing.TB, version uint16, respSize int) *exchange {
	s, c := tlsPair(t, newListener(t), version)
	e := &exchange{s: s, c: c,
		req:  []byte("GET /hello HTTP/1.1\r\nHost: localhost\r\nUser-Agent: gust\r\n\r\n"),
		resp: bytes.Repeat([]byte("x"), respSize),
		sbuf: make([]byte, 4<<10), cbuf: make([]byte, 64<<10)}
	// Warm up: crypto/tls grows its input buffer to the largest record and
	// ramps its record size up over the first 128 KiB.
	for i := 0; i < 200 && e.err == nil; i++ {
		e.run()
	}
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e
}

var respSizes = []struct {
	name string
	size int
}{{"100-byte response", 100}, {"16 KiB response", 16 << 10}}

// cryptoTLSAllocsPerRecordRead is what crypto/tls itself allocates each time
// it reads a record whose bytes are not in its input buffer yet: one
// atLeastReader (crypto/tls/conn.go:837, "&atLeastReader{...} escapes to
// heap" under -gcflags=-m), 32 bytes. No net.Conn under a tls.Conn avoids it;
// net/http over TLS pays it too.
const cryptoTLSAllocsPerRecordRead = 1

// TestTLSKeepAliveRoundTripAllocatesNothingOfItsOwn checks that a keep-alive
// round trip allocates nothing but crypto/tls's own allocation per record
// read over TLS 1.2 (one request record read by the server, one response
// record read by the client), and nothing at all over TLS 1.3, where both
// sides take their records over after the handshake (tls13direct.go).
func TestTLSKeepAliveRoundTripAllocatesNothingOfItsOwn(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	for _, ver := range versions {
		for _, rs := range respSizes {
			t.Run(fmt.Sprintf("%s %s", ver.name, rs.name), func(t *testing.T) {
				e := newExchange(t, ver.v, rs.size)
				allocs := testing.AllocsPerRun(500, e.run)
				if e.err != nil {
					t.Fatal(e.err)
				}
				want := float64(2 * cryptoTLSAllocsPerRecordRead)
				if ver.v == tls.VersionTLS13 {
					want = 0
					if e.s.d == nil || e.c.d == nil {
						t.Fatal("a TLS 1.3 connection kept crypto/tls's records")
					}
				}
				if allocs != want {
					t.Fatalf("%v allocations per keep-alive round trip, want %v (crypto/tls's own, one per record it reads)", allocs, want)
				}
				if e.s.Buffered() != 0 || e.c.Buffered() != 0 || e.s.rc.in != nil || e.s.rc.out != nil || e.s.plain != nil {
					t.Fatal("an idle connection holds record buffers")
				}
			})
		}
	}
}

// BenchmarkTLSKeepAliveRoundTrip measures one request and its response over
// TLS, both sides ours, in one goroutine (so it counts both sides' work).
func BenchmarkTLSKeepAliveRoundTrip(b *testing.B) {
	for _, ver := range versions {
		for _, rs := range respSizes {
			b.Run(fmt.Sprintf("%s/%s", ver.name, rs.name), func(b *testing.B) {
				e := newExchange(b, ver.v, rs.size)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N && e.err == nil; i++ {
					e.run()
				}
				if e.err != nil {
					b.Fatal(e.err)
				}
			})
		}
	}
}

// BenchmarkStdlibTLSKeepAliveRoundTrip is BenchmarkTLSKeepAliveRoundTrip
// with crypto/tls's blocking Conn over net.Conn on both sides, the server on
// its own goroutine, as net/http runs it: the comparison for allocations.
func BenchmarkStdlibTLSKeepAliveRoundTrip(b *testing.B) {
	for _, ver := range versions {
		for _, rs := range respSizes {
			b.Run(fmt.Sprintf("%s/%s", ver.name, rs.name), func(b *testing.B) {
				ln := newListener(b)
				cc, err := net.Dial("tcp", ln.ln.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				sc, err := ln.ln.Accept()
				if err != nil {
					b.Fatal(err)
				}
				defer cc.Close()
				defer sc.Close()
				req := []byte("GET /hello HTTP/1.1\r\nHost: localhost\r\nUser-Agent: gust\r\n\r\n")
				resp := bytes.Repeat([]byte("x"), rs.size)
				go func() {
					s := tls.Server(sc, serverConfig(b, ver.v))
					buf := make([]byte, len(req))
					for {
						if _, err := io.ReadFull(s, buf); err != nil {
							return
						}
						if _, err := s.Write(resp); err != nil {
							return
						}
					}
				}()
				c := tls.Client(cc, clientConfig(b, ver.v))
				buf := make([]byte, rs.size)
				rt := func() {
					if _, err := c.Write(req); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(c, buf); err != nil {
						b.Fatal(err)
					}
				}
				for i := 0; i < 200; i++ {
					rt()
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					rt()
				}
			})
		}
	}
}
