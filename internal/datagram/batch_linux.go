//go:build linux

package datagram

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Batch is the messages of one recvmmsg or sendmmsg: a buffer, a peer
// address and a length per slot, with the kernel's message headers
// pointing at them. It is made once and reused, so moving datagrams
// allocates nothing. A Batch is not safe for concurrent use.
type Batch struct {
	bufs  [][]byte
	lens  []int
	addrs []unix.RawSockaddrInet6 // room for either family
	iovs  []unix.Iovec
	hdrs  []unix.Mmsghdr
	// Each slot's control messages: read, the GRO segment size and ECN
	// codepoint they gave (segments_linux.go, ecn_linux.go); written, the
	// ECN codepoint to send with.
	oobs  [][oobSize]byte
	segs  []int
	marks []uint8
}

// oobSize is the room for a slot's control messages: read, a GRO segment
// size and a TOS byte or traffic class; written, an ECN codepoint in one
// or two forms (putECN). Each is an int at most.
const oobSize = 2 * (unix.SizeofCmsghdr + 8)

// NewBatch returns a Batch of n slots with a size-byte buffer each (1500
// for QUIC's usual datagrams; 65535 to take coalesced GRO segments).
func NewBatch(n, size int) *Batch {
	b := &Batch{
		bufs:  make([][]byte, n),
		lens:  make([]int, n),
		addrs: make([]unix.RawSockaddrInet6, n),
		iovs:  make([]unix.Iovec, n),
		hdrs:  make([]unix.Mmsghdr, n),
		oobs:  make([][oobSize]byte, n),
		segs:  make([]int, n),
		marks: make([]uint8, n),
	}
	mem := make([]byte, n*size)
	for i := range n {
		b.bufs[i] = mem[i*size : (i+1)*size : (i+1)*size]
		b.iovs[i].Base = &b.bufs[i][0]
		b.hdrs[i].Hdr.Iov = &b.iovs[i]
		b.hdrs[i].Hdr.SetIovlen(1)
		b.hdrs[i].Hdr.Name = (*byte)(unsafe.Pointer(&b.addrs[i]))
		b.hdrs[i].Hdr.Control = &b.oobs[i][0]
	}
	return b
}

// Len returns the number of slots.
func (b *Batch) Len() int { return len(b.bufs) }

// Buffer returns slot i's whole buffer, to compose a datagram in before
// Set.
func (b *Batch) Buffer(i int) []byte { return b.bufs[i] }

// Datagram returns slot i's datagram: what ReadBatch read into it, or
// what Set put there.
func (b *Batch) Datagram(i int) []byte { return b.bufs[i][:b.lens[i]] }

// Addr returns slot i's peer: the sender after ReadBatch, the receiver
// after Set. It is the zero AddrPort for an address of another family.
func (b *Batch) Addr(i int) netip.AddrPort {
	sa := &b.addrs[i]
	port := uint16(sa.Port>>8 | sa.Port<<8) // the port is in network order
	switch sa.Family {
	case unix.AF_INET:
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(s4.Addr), port)
	case unix.AF_INET6:
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), port)
	}
	return netip.AddrPort{}
}

// Set makes slot i a datagram of the first n bytes of its Buffer, to be
// sent to the address to.
// It goes without an ECN codepoint unless SetECN gives one.
func (b *Batch) Set(i, n int, to netip.AddrPort) {
	b.lens[i] = n
	b.marks[i] = 0
	b.setAddr(i, to)
}

// SetConnected makes slot i a datagram of the first n bytes of its
// Buffer for a connected socket: it names no address, so that the socket
// sends it to its peer (a socket of any family, a socketpair's included).
func (b *Batch) SetConnected(i, n int) {
	b.lens[i] = n
	b.marks[i] = 0
	b.hdrs[i].Hdr.Namelen = 0
}

// setAddr writes to into slot i's address, in its family's form.
func (b *Batch) setAddr(i int, to netip.AddrPort) {
	sa := &b.addrs[i]
	*sa = unix.RawSockaddrInet6{}
	p := to.Port()
	if a := to.Addr(); a.Is4() {
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		s4.Family = unix.AF_INET
		s4.Port = p>>8 | p<<8
		s4.Addr = a.As4()
		b.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrInet4
		return
	}
	sa.Family = unix.AF_INET6
	sa.Port = p>>8 | p<<8
	sa.Addr = to.Addr().As16()
	b.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrInet6
}
