//go:build linux

package datagram

import (
	"fmt"
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Socket is a non-blocking UDP socket for one event loop.
type Socket struct {
	fd int
	v6 bool // an IPv6 socket: ECN codepoints go as IPV6_TCLASS
}

// Options says how Open makes a socket.
type Options struct {
	// ReusePort sets SO_REUSEPORT, so that each loop may bind a socket
	// of its own to the same address and the kernel spreads the flows
	// over them.
	ReusePort bool
	// Buffer, if positive, asks for socket buffers of this many bytes
	// each way: a server's socket takes the bursts of many clients at
	// once, past the kernel's default of about 200 KB. As root the
	// kernel's cap (net.core.rmem_max) is passed (SO_RCVBUFFORCE);
	// otherwise the cap holds.
	Buffer int
}

// Open returns a non-blocking UDP socket bound to addr (port 0: one the
// kernel picks; Socket.LocalAddr says which).
func Open(addr netip.AddrPort, opt Options) (*Socket, error) {
	family := unix.AF_INET6
	if addr.Addr().Is4() {
		family = unix.AF_INET
	}
	fd, err := unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, fmt.Errorf("udp socket: %w", err)
	}
	if opt.ReusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("udp socket: SO_REUSEPORT: %w", err)
		}
	}
	if opt.Buffer > 0 {
		setBuffer(fd, unix.SO_RCVBUFFORCE, unix.SO_RCVBUF, opt.Buffer)
		setBuffer(fd, unix.SO_SNDBUFFORCE, unix.SO_SNDBUF, opt.Buffer)
	}
	var sa unix.Sockaddr
	if family == unix.AF_INET {
		sa = &unix.SockaddrInet4{Port: int(addr.Port()), Addr: addr.Addr().As4()}
	} else {
		sa = &unix.SockaddrInet6{Port: int(addr.Port()), Addr: addr.Addr().As16()}
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("udp bind %s: %w", addr, err)
	}
	return &Socket{fd: fd, v6: family == unix.AF_INET6}, nil
}

// setBuffer sets a socket buffer's size, past the kernel's cap when the
// process may (force), within it otherwise.
func setBuffer(fd, force, plain, size int) {
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, force, size) != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, plain, size)
	}
}

// SocketOf returns the Socket of a UDP descriptor made elsewhere (a
// client's connected socket), for a caller that keeps descriptors.
func SocketOf(fd int) Socket { return Socket{fd: fd, v6: isIPv6(fd)} }

// FD returns the socket's descriptor, for a poller.
func (s *Socket) FD() int { return s.fd }

// LocalAddr returns the address the socket is bound to.
func (s *Socket) LocalAddr() (netip.AddrPort, error) {
	sa, err := unix.Getsockname(s.fd)
	if err != nil {
		return netip.AddrPort{}, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)), nil
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)), nil
	}
	return netip.AddrPort{}, fmt.Errorf("udp socket: unexpected address %T", sa)
}

// Close closes the socket.
func (s *Socket) Close() error { return unix.Close(s.fd) }

// ReadBatch reads up to b.Len() datagrams in one recvmmsg, into b's
// slots from the first, and returns how many it read: 0 and no error
// when none is waiting (the loop waits for the next readable event). A
// datagram longer than its slot's buffer is cut to it, as recvmsg does.
// Like internal/sys's calls it does not tell the scheduler: on a
// non-blocking socket it never blocks.
func (s *Socket) ReadBatch(b *Batch) (int, error) {
	for i := range b.hdrs {
		b.iovs[i].SetLen(len(b.bufs[i]))
		b.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrInet6
		b.hdrs[i].Len = 0
		b.hdrs[i].Hdr.SetControllen(oobSize)
	}
	n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&b.hdrs[0])), uintptr(len(b.hdrs)), unix.MSG_DONTWAIT, 0, 0)
	switch e {
	case 0:
	case unix.EAGAIN:
		return 0, nil
	default:
		return 0, e
	}
	for i := range int(n) {
		b.lens[i] = int(b.hdrs[i].Len)
	}
	b.readControl(int(n))
	return int(n), nil
}

// WriteBatch sends the datagrams of b's first n slots (made with Set) in
// one sendmmsg and returns how many the kernel took: fewer than n when
// the socket's buffer filled (the rest wait for a writable event, from
// slot k on: WriteBatchFrom).
func (s *Socket) WriteBatch(b *Batch, n int) (int, error) {
	return s.WriteBatchFrom(b, 0, n)
}

// WriteBatchFrom is WriteBatch for slots from to from+n-1.
func (s *Socket) WriteBatchFrom(b *Batch, from, n int) (int, error) {
	if n == 0 {
		return 0, nil
	}
	for i := from; i < from+n; i++ {
		b.iovs[i].SetLen(b.lens[i])
		b.setControl(i, s.v6)
	}
	k, _, e := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&b.hdrs[from])), uintptr(n), unix.MSG_DONTWAIT, 0, 0)
	switch e {
	case 0:
		return int(k), nil
	case unix.EAGAIN:
		return 0, nil
	}
	return 0, e
}

// Features says what the kernel offers a datagram transport beyond plain
// batches.
type Features struct {
	// GSO: UDP_SEGMENT, one send of many equal segments.
	GSO bool
	// GRO: UDP_GRO, one receive of many coalesced segments.
	GRO bool
	// ECN: the codepoints of datagrams received can be read (IP_RECVTOS);
	// they can always be set on those sent.
	ECN bool
}

// Probe asks the kernel, on s, which Features it has: an option the
// kernel does not know fails to be read.
func (s *Socket) Probe() Features {
	var f Features
	if _, err := unix.GetsockoptInt(s.fd, unix.IPPROTO_UDP, unix.UDP_SEGMENT); err == nil {
		f.GSO = true
	}
	if _, err := unix.GetsockoptInt(s.fd, unix.IPPROTO_UDP, unix.UDP_GRO); err == nil {
		f.GRO = true
	}
	f.ECN = probeECN(s.fd)
	return f
}
