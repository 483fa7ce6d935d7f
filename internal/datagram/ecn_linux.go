//go:build linux

package datagram

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ECN codepoints (RFC 3168) travel in the two low bits of the IPv4 TOS
// byte or the IPv6 traffic class. A sender sets one per datagram with a
// control message (IP_TOS, IPV6_TCLASS); a reader that asked for them
// (IP_RECVTOS, IPV6_RECVTCLASS) gets each datagram's in a control message
// beside it. Batches carry both, a slot at a time.

// ecnMask keeps the ECN bits of a TOS byte or traffic class.
const ecnMask = 0x03

// EnableECN asks the kernel to hand fd's reader the ECN codepoint of each
// datagram (Batch.ECN): IP_RECVTOS, and on an IPv6 socket IPV6_RECVTCLASS
// too (an IPv6 socket may carry IPv4 datagrams as mapped addresses).
func EnableECN(fd int) error {
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_RECVTOS, 1); err != nil {
		if !isIPv6(fd) {
			return err
		}
	}
	if isIPv6(fd) {
		return unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_RECVTCLASS, 1)
	}
	return nil
}

// isIPv6 reports whether fd is an IPv6 socket.
func isIPv6(fd int) bool {
	d, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	return err == nil && d == unix.AF_INET6
}

// ECN returns the ECN codepoint slot i's datagram arrived with, after
// ReadBatch on a socket with EnableECN; 0 (Not-ECT) otherwise.
func (b *Batch) ECN(i int) uint8 { return b.marks[i] }

// SetECN gives slot i's datagram, made with Set or SetConnected, the ECN
// codepoint mark (0 to 3) to be sent with; 0 sends none.
func (b *Batch) SetECN(i int, mark uint8) { b.marks[i] = mark & ecnMask }

// readControl reads each slot's control messages after a read of n: the
// GRO segment size and the ECN codepoint.
func (b *Batch) readControl(n int) {
	for i := range n {
		b.segs[i], b.marks[i] = 0, 0
		oob := b.oobs[i][:min(int(b.hdrs[i].Hdr.Controllen), oobSize)]
		for len(oob) >= unix.SizeofCmsghdr {
			c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
			end := int(c.Len)
			if end < unix.SizeofCmsghdr || end > len(oob) {
				break
			}
			data := oob[unix.SizeofCmsghdr:end]
			switch {
			case c.Level == unix.IPPROTO_UDP && c.Type == unix.UDP_GRO && len(data) >= 4:
				b.segs[i] = int(int32(binary.NativeEndian.Uint32(data)))
			case c.Level == unix.IPPROTO_IP && c.Type == unix.IP_TOS && len(data) >= 1:
				b.marks[i] = data[0] & ecnMask
			case c.Level == unix.IPPROTO_IPV6 && c.Type == unix.IPV6_TCLASS && len(data) >= 4:
				b.marks[i] = uint8(binary.NativeEndian.Uint32(data)) & ecnMask
			}
			next := unix.CmsgSpace(end - unix.SizeofCmsghdr)
			if next >= len(oob) {
				break
			}
			oob = oob[next:]
		}
	}
}

// putECN writes the control messages that send with the ECN codepoint
// mark at the start of oob (room for ecnSpace) and returns their length:
// IP_TOS on an IPv4 socket; on an IPv6 one IPV6_TCLASS and IP_TOS too,
// for the IPv4 peers it reaches by mapped addresses (each path of the
// kernel reads its own and passes over the other).
func putECN(oob []byte, mark uint8, v6 bool) int {
	n := 0
	if v6 {
		n = putInt(oob, unix.IPPROTO_IPV6, unix.IPV6_TCLASS, mark)
	}
	return n + putInt(oob[n:], unix.IPPROTO_IP, unix.IP_TOS, mark)
}

// ecnSpace is the room putECN needs at most.
const ecnSpace = 2 * (unix.SizeofCmsghdr + 8)

// putInt writes a control message of an int at the start of oob and
// returns its length.
func putInt(oob []byte, level, typ int32, v uint8) int {
	c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	c.Level, c.Type = level, typ
	c.SetLen(unix.CmsgLen(4))
	binary.NativeEndian.PutUint32(oob[unix.SizeofCmsghdr:], uint32(v))
	return unix.CmsgSpace(4)
}

// setControl points slot i's header at the control message that sends it
// with its ECN codepoint, or at none.
func (b *Batch) setControl(i int, v6 bool) {
	h := &b.hdrs[i].Hdr
	if b.marks[i] == 0 {
		h.Controllen = 0
		return
	}
	h.SetControllen(putECN(b.oobs[i][:], b.marks[i], v6))
}

// probeECN reports whether fd takes IP_RECVTOS, which reading marks needs.
func probeECN(fd int) bool {
	return unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_RECVTOS, 0) == nil
}
