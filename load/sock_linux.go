//go:build linux

package load

import (
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/gust-http/gust/internal/sys"
	"github.com/gust-http/gust/result"

	"golang.org/x/sys/unix"
)

// sockaddr is the target address in the form the socket calls take.
type sockaddr struct {
	family int
	sa     unix.Sockaddr
}

func newSockaddr(a *net.TCPAddr) (sockaddr, error) {
	if ip4 := a.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: a.Port}
		copy(sa.Addr[:], ip4)
		return sockaddr{family: unix.AF_INET, sa: sa}, nil
	}
	if ip6 := a.IP.To16(); ip6 != nil {
		sa := &unix.SockaddrInet6{Port: a.Port}
		copy(sa.Addr[:], ip6)
		return sockaddr{family: unix.AF_INET6, sa: sa}, nil
	}
	return sockaddr{}, fmt.Errorf("unsupported address %s", a)
}

// sourceAddr is a local address to bind a connection to, port 0.
type sourceAddr struct{ sa unix.Sockaddr }

func newSourceAddr(a netip.Addr) sourceAddr {
	if a.Is4() {
		return sourceAddr{&unix.SockaddrInet4{Addr: a.As4()}}
	}
	return sourceAddr{&unix.SockaddrInet6{Addr: a.As16()}}
}

// openSocket starts a non-blocking connect, from src if not nil;
// completion is reported by the poller as writability.
func openSocket(sa sockaddr, src *sourceAddr) (int, error) {
	fd, err := unix.Socket(sa.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	// Requests are small and latency matters: never wait for Nagle.
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if src != nil {
		// The port is picked at connect, for the whole four-tuple: each
		// source address then has its own ephemeral ports to this target.
		unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
		if err := unix.Bind(fd, src.sa); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("bind to source address: %w", err)
		}
	}
	if err := unix.Connect(fd, sa.sa); err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openUDPSocket returns a non-blocking UDP socket connected to sa (a
// QUIC connection's own), bound to src if not nil. Connecting a UDP
// socket sends nothing: it is ready at once, and the kernel then drops
// datagrams from anyone but the server.
func openUDPSocket(sa sockaddr, src *sourceAddr) (int, error) {
	fd, err := unix.Socket(sa.family, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return -1, err
	}
	if src != nil {
		if err := unix.Bind(fd, src.sa); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("bind to source address: %w", err)
		}
	}
	if err := unix.Connect(fd, sa.sa); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// connectError returns the outcome of a finished non-blocking connect.
func connectError(fd int) error {
	errno, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return err
	}
	if errno != 0 {
		return unix.Errno(errno)
	}
	return nil
}

func closeSocket(fd int) { unix.Close(fd) }

// enableRXStamps has the kernel stamp what fd receives (Config.RXStamps);
// a socket it refuses is timed on reading.
func enableRXStamps(fd int) { _ = sys.EnableRXStamps(fd) }

// classifyConnect maps a failed connect to an ErrorKind.
func classifyConnect(err error) result.ErrorKind {
	switch {
	case errors.Is(err, unix.ECONNREFUSED):
		return result.ErrConnectRefused
	case errors.Is(err, unix.ETIMEDOUT):
		return result.ErrConnectTimeout
	case errors.Is(err, unix.ECONNRESET), errors.Is(err, unix.EPIPE):
		// The handshake completed and the server reset the connection
		// before the loop saw it connected: a reset, not a failed connect.
		return result.ErrReset
	}
	return result.ErrConnect
}
