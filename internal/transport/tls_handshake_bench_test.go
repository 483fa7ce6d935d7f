//go:build linux

package transport

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rawListener accepts loopback TCP connections as raw non-blocking sockets,
// as an event loop does.
type rawListener struct {
	fd   int
	addr unix.SockaddrInet4
}

func newRawListener(b testing.TB) *rawListener {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	l := &rawListener{fd: fd, addr: unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}}
	if err := unix.Bind(fd, &l.addr); err != nil {
		b.Fatal(err)
	}
	if err := unix.Listen(fd, 1024); err != nil {
		b.Fatal(err)
	}
	sa, _ := unix.Getsockname(fd)
	l.addr.Port = sa.(*unix.SockaddrInet4).Port
	b.Cleanup(func() { unix.Close(fd) })
	return l
}

// pair connects and accepts: two non-blocking sockets, the caller closes them.
func (l *rawListener) pair(b testing.TB) (int, int) {
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := unix.Connect(c, &l.addr); err != nil {
		b.Fatal(err)
	}
	s, _, err := unix.Accept4(l.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	unix.SetNonblock(c, true)
	// As net.Conn does: without it, Nagle holds a flight's last write.
	unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	unix.SetsockoptInt(c, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return s, c
}

// BenchmarkTLSHandshake measures a TCP connection, a TLS handshake and a
// 1-byte round trip (a TLS 1.3 client takes its ticket then), client and
// server on loopback: "gust" is ours on both sides (each handshake on its
// goroutine, over a dup of the socket), "stdlib" crypto/tls's blocking
// Handshake over net.Conn on both sides, as net/http does.
func BenchmarkTLSHandshake(b *testing.B) {
	for _, ver := range versions {
		for _, resumed := range []bool{false, true} {
			kind := "full"
			if resumed {
				kind = "resumed"
			}
			b.Run(fmt.Sprintf("gust/%s/%s", ver.name, kind), func(b *testing.B) {
				benchHandshake(b, ver.v, resumed, gustHandshake)
			})
			b.Run(fmt.Sprintf("stdlib/%s/%s", ver.name, kind), func(b *testing.B) {
				benchHandshake(b, ver.v, resumed, stdlibHandshake)
			})
		}
	}
}

type handshakeFunc func(b *testing.B, scfg, ccfg *tls.Config) (resumed bool)

func benchHandshake(b *testing.B, version uint16, resume bool, hs handshakeFunc) {
	scfg, ccfg := serverConfig(b, version), clientConfig(b, version)
	if resume {
		ccfg.ClientSessionCache = tls.NewLRUClientSessionCache(64)
		hs(b, scfg, ccfg) // the ticket
	}
	b.ReportAllocs()
	b.ResetTimer()
	resumed := 0
	for i := 0; i < b.N; i++ {
		if hs(b, scfg, ccfg) {
			resumed++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "handshakes/s")
	if want := map[bool]int{false: 0, true: b.N}[resume]; resumed != want {
		b.Fatalf("%d of %d handshakes resumed, want %d", resumed, b.N, want)
	}
}

var gustLn *rawListener

func gustHandshake(b *testing.B, scfg, ccfg *tls.Config) bool {
	if gustLn == nil {
		gustLn = newRawListener(b)
		b.Cleanup(func() { gustLn = nil })
	}
	a, z := gustLn.pair(b)
	defer unix.Close(a)
	defer unix.Close(z)
	s, c := NewServerTLS(NewPlain(a), scfg), NewClientTLS(NewPlain(z), ccfg)
	defer s.Release()
	defer c.Release()
	hs, hc := handshake(s, 10*time.Second), handshake(c, 10*time.Second)
	if err := <-hs; err != nil {
		b.Fatal(err)
	}
	if err := <-hc; err != nil {
		b.Fatal(err)
	}
	roundTrip(b, c, s, []byte{1}, []byte{2}, make([]byte, 1))
	return c.DidResume()
}

var stdLn net.Listener

func stdlibHandshake(b *testing.B, scfg, ccfg *tls.Config) bool {
	if stdLn == nil {
		stdLn = newListener(b).ln
		b.Cleanup(func() { stdLn = nil })
	}
	cc, err := net.Dial("tcp", stdLn.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	sc, err := stdLn.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	defer sc.Close()
	errc := make(chan error, 1)
	go func() {
		s := tls.Server(sc, scfg)
		buf := make([]byte, 1)
		if _, err := io.ReadFull(s, buf); err != nil {
			errc <- err
			return
		}
		_, err := s.Write(buf)
		errc <- err
	}()
	c := tls.Client(cc, ccfg)
	buf := []byte{1}
	if _, err := c.Write(buf); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil {
		b.Fatal(err)
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	return c.ConnectionState().DidResume
}
