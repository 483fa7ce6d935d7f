//go:build linux

package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/quic"
)

// HTTP/3 enters the engine here: one UDP socket per loop on the TLS
// port, in one SO_REUSEPORT group, so that the kernel's hash of a
// client's addresses sends its datagrams to the same loop every time;
// each loop routes them on to its connections by connection ID
// (h3loop_linux.go). A client that changes address (migration) lands on
// another loop, which does not know its connection IDs, and is answered
// with a stateless reset: it reconnects.

// h3ConnIDLen is the length of the server's connection IDs, which short
// headers do not announce.
const h3ConnIDLen = 8

// h3SocketBuffer is each UDP socket's buffer size each way: a burst of
// Initials from many clients (about 2.3 KB of kernel memory each) would
// overflow the default 200 KB at about 90.
const h3SocketBuffer = 4 << 20

// h3shared is what a server's loops share for HTTP/3: the QUIC
// configuration (the TLS certificates with ALPN "h3"), and the keys of
// the stateless reset tokens and of the address validation tokens, from
// which each loop makes its own (neither serves two goroutines at once).
type h3shared struct {
	cfg                quic.Config
	resetKey, tokenKey []byte
}

// openHTTP3 gives every loop a UDP socket on the port the TCP listeners
// bound, and the server its Alt-Svc.
func (e *engine) openHTTP3() error {
	s := e.srv
	tc := s.tlsConf.Clone()
	tc.NextProtos = []string{"h3"}
	tc.MinVersion = tls.VersionTLS13 // QUIC's handshake is TLS 1.3; the config is then shared, not copied
	resetKey, tokenKey, err := h3Keys(s.cfg.HTTP3Secret)
	if err != nil {
		return err
	}
	sh := &h3shared{resetKey: resetKey, tokenKey: tokenKey, cfg: quic.Config{
		TLSConfig:       tc,
		MaxIdleTimeout:  s.cfg.IdleTimeout,
		ConnIDLen:       h3ConnIDLen,
		MaxDatagramSize: 1452, // an Ethernet MTU's UDP payload over IPv6; the peer's limit caps it
	}}
	tcp := e.addr.(*net.TCPAddr)
	ip, _ := netip.AddrFromSlice(tcp.IP)
	if ip4 := tcp.IP.To4(); ip4 != nil && !tcp.IP.Equal(net.IPv4zero) {
		ip = netip.AddrFrom4([4]byte(ip4))
	} else if tcp.IP == nil || tcp.IP.IsUnspecified() {
		ip = netip.IPv6Unspecified() // both families, as the TCP listeners
	}
	ap := netip.AddrPortFrom(ip, uint16(tcp.Port))
	for _, l := range e.loops {
		sock, err := datagram.Open(ap, datagram.Options{ReusePort: true, Buffer: h3SocketBuffer})
		if err != nil {
			e.closeHTTP3()
			return fmt.Errorf("http3: %w", err)
		}
		if err := l.poller.Add(sock.FD()); err != nil {
			sock.Close()
			e.closeHTTP3()
			return fmt.Errorf("http3: %w", err)
		}
		h, err := newH3Loop(l, *sock, sh)
		if err != nil {
			sock.Close()
			e.closeHTTP3()
			return fmt.Errorf("http3: %w", err)
		}
		l.h3 = h
	}
	s.altSvc = `h3=":` + strconv.Itoa(tcp.Port) + `"; ma=86400`
	s.altSvcLine = []byte("Alt-Svc: " + s.altSvc + "\r\n")
	return nil
}

// closeHTTP3 closes the loops' UDP sockets, for an engine that never ran.
func (e *engine) closeHTTP3() {
	for _, l := range e.loops {
		if l.h3 != nil {
			l.h3.sock.Close()
			l.h3 = nil
		}
	}
}

// h3Keys returns the keys of the stateless reset tokens and of the
// address validation tokens: derived from secret (Config.HTTP3Secret),
// or random without one.
func h3Keys(secret []byte) (resetKey, tokenKey []byte, err error) {
	if secret == nil {
		resetKey, tokenKey = make([]byte, 32), make([]byte, 32)
		if _, err := rand.Read(resetKey); err != nil {
			return nil, nil, err
		}
		_, err := rand.Read(tokenKey)
		return resetKey, tokenKey, err
	}
	if len(secret) < 32 {
		return nil, nil, errors.New("Config.HTTP3Secret must hold at least 32 bytes")
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	return derive("gust quic stateless reset"), derive("gust quic address token"), nil
}

// loopTime converts a loop's clock to QUIC's.
func (e *engine) loopTime(now int64) time.Time { return e.base.Add(time.Duration(now)) }
