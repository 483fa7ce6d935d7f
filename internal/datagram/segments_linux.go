//go:build linux

package datagram

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Segmentation offloads (GSO and GRO): many datagrams of one size moved
// as one buffer through the stack, split by the kernel on the way out
// (UDP_SEGMENT) or coalesced on the way in (UDP_GRO). On loopback both
// ends see one buffer where there would be many: fewer system calls and
// fewer trips through the UDP stack.

// MaxSegments is the most datagrams one GSO send may carry (the kernel's
// UDP_MAX_SEGMENTS).
const MaxSegments = 64

// EnableGRO asks the kernel to hand fd's reader coalesced datagrams; a
// Batch read then needs slots large enough (64 KiB).
func EnableGRO(fd int) error {
	return unix.SetsockoptInt(fd, unix.IPPROTO_UDP, unix.UDP_GRO, 1)
}

// WithSegments returns b, whose slots always have room for the control
// message that says a read slot holds coalesced datagrams (Segment).
func (b *Batch) WithSegments() *Batch { return b }

// Segment returns the size of the datagrams coalesced into slot i by GRO,
// after ReadBatch; 0 when the slot holds one datagram.
func (b *Batch) Segment(i int) int { return b.segs[i] }

// Segments is one GSO send on a connected socket: datagrams appended one
// after the other into one buffer, all of one size but the last, which
// may be shorter, then sent by one sendmsg with UDP_SEGMENT. Made once
// and reused.
type Segments struct {
	buf  []byte
	seg  int   // the size of every datagram but the last
	n    int   // datagrams appended
	end  bool  // the last one was shorter: no more may follow
	mark uint8 // the ECN codepoint of all of them
	hdr  unix.Msghdr
	iov  unix.Iovec
	oob  [unix.SizeofCmsghdr + 8 + ecnSpace]byte
}

// NewSegments returns an empty GSO send with room for MaxSegments
// datagrams of up to size bytes.
func NewSegments(size int) *Segments {
	g := &Segments{buf: make([]byte, 0, MaxSegments*size)}
	g.hdr.Iov = &g.iov
	g.hdr.SetIovlen(1)
	return g
}

// Reset empties g.
func (g *Segments) Reset() { g.buf, g.seg, g.n, g.end, g.mark = g.buf[:0], 0, 0, false, 0 }

// ECN returns the ECN codepoint the datagrams go with.
func (g *Segments) ECN() uint8 { return g.mark }

// SetECN sets the ECN codepoint of the datagrams, before the first is
// appended: one send carries one codepoint.
func (g *Segments) SetECN(mark uint8) { g.mark = mark & ecnMask }

// Len returns the datagrams appended.
func (g *Segments) Len() int { return g.n }

// Fits reports whether a datagram of size bytes may be appended: the
// first sets the size; the others must match it, or be shorter and end
// the send.
func (g *Segments) Fits(size int) bool {
	switch {
	case g.n == 0:
		return size <= cap(g.buf)
	case g.end || g.n == MaxSegments || size > g.seg:
		return false
	}
	return len(g.buf)+size <= min(cap(g.buf), maxSegmentsBytes)
}

// maxSegmentsBytes bounds one GSO send: the kernel builds it as one UDP
// datagram before splitting it, and refuses (EMSGSIZE) one whose payload
// passes what an IPv4 datagram can hold.
const maxSegmentsBytes = 65535 - 20 - 8

// Append adds d, which Fits.
func (g *Segments) Append(d []byte) {
	if g.n == 0 {
		g.seg = len(d)
	} else if len(d) < g.seg {
		g.end = true
	}
	g.buf = append(g.buf, d...)
	g.n++
}

// WriteSegments sends g's datagrams in one sendmsg, with UDP_SEGMENT when
// there are several; false with no error when the socket's buffer was
// full (the datagrams are dropped, as a full router queue would).
func (s *Socket) WriteSegments(g *Segments) (bool, error) {
	if g.n == 0 {
		return true, nil
	}
	g.iov.Base = &g.buf[0]
	g.iov.SetLen(len(g.buf))
	g.hdr.Control, g.hdr.Controllen = nil, 0
	n := 0
	if g.n > 1 {
		c := (*unix.Cmsghdr)(unsafe.Pointer(&g.oob[0]))
		c.Level, c.Type = unix.IPPROTO_UDP, unix.UDP_SEGMENT
		c.SetLen(unix.CmsgLen(2))
		binary.NativeEndian.PutUint16(g.oob[unix.SizeofCmsghdr:], uint16(g.seg))
		n = unix.CmsgSpace(2)
	}
	if g.mark != 0 {
		n += putECN(g.oob[n:], g.mark, s.v6)
	}
	if n > 0 {
		g.hdr.Control = &g.oob[0]
		g.hdr.SetControllen(n)
	}
	_, _, e := unix.RawSyscall(unix.SYS_SENDMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&g.hdr)), unix.MSG_DONTWAIT)
	switch e {
	case 0:
		return true, nil
	case unix.EAGAIN:
		return false, nil
	}
	return false, e
}
