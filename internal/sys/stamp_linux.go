//go:build linux

package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// EnableRXStamps asks the kernel to stamp what fd receives with the time
// it arrived (SO_TIMESTAMPNS, the system clock), for ReadStamped.
func EnableRXStamps(fd int) error {
	return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
}

// ReadStamped is Read by recvmsg(2) on a socket with EnableRXStamps: it
// also returns when the kernel received the data, in nanoseconds of the
// system clock (0 if no stamp came with it). On TCP the stamp is the last
// segment's of those read. oob holds the control message (64 bytes are
// plenty); nothing is allocated.
func ReadStamped(fd int, p, oob []byte) (n int, rx int64, err error) {
	if len(p) == 0 {
		return 0, 0, nil
	}
	iov := unix.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := unix.Msghdr{Iov: &iov, Iovlen: 1}
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), 0)
	if e != 0 {
		return -1, 0, e
	}
	return int(r), rxStamp(oob[:msg.Controllen]), nil
}

// rxStamp finds SCM_TIMESTAMPNS among the control messages in b.
func rxStamp(b []byte) int64 {
	const hdr = unix.SizeofCmsghdr
	for len(b) >= hdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
		l := int(h.Len)
		if l < hdr || l > len(b) {
			return 0
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && l-hdr >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&b[hdr]))
			return ts.Nano()
		}
		l = (l + unix.SizeofPtr - 1) &^ (unix.SizeofPtr - 1) // CMSG_ALIGN
		if l >= len(b) {
			return 0
		}
		b = b[l:]
	}
	return 0
}
