//go:build linux

package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read is read(2) on a non-blocking socket, made without telling the Go
// scheduler (as RawSyscall does): it never blocks, and at one call per
// request the scheduler's bookkeeping around a system call (and the monitor
// thread taking the P away from a loop whose call ran past 20 us, then the
// loop waiting to get it back) costs more than the call saves.
// It returns (-1, errno) on failure, as read(2) does.
func Read(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// Accept4 is accept4(2) on the non-blocking listening socket lnfd, made as
// Read is, without asking for the peer's address: x/sys's Accept4 asks,
// and allocates a sockaddr buffer and its Go form for every connection
// (about 150 bytes of garbage each, a ramp of a million connections
// making 150 MB of it); the address is looked up when wanted.
// On 386 and s390x before Linux 4.3, accept4 is reached only through
// socketcall(2): ENOSYS sends the call to x/sys, which knows the way.
func Accept4(lnfd, flags int) (int, error) {
	fd, _, e := unix.RawSyscall6(unix.SYS_ACCEPT4, uintptr(lnfd), 0, 0, uintptr(flags), 0, 0)
	if e == unix.ENOSYS {
		nfd, _, err := unix.Accept4(lnfd, flags)
		return nfd, err
	}
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// Write is write(2) on a non-blocking socket, made as Read is.
func Write(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// Sendfile is sendfile(2) from the regular file in to the non-blocking
// socket out, n bytes from *off (which it advances), made as Read is: on
// a socket it never blocks, and a file in the page cache is copied
// without waiting either. (A file that must be read from disk first
// holds the calling thread for that read, scheduler or not.)
func Sendfile(out, in int, off *int64, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	w, _, e := unix.RawSyscall6(unix.SYS_SENDFILE, uintptr(out), uintptr(in), uintptr(unsafe.Pointer(off)), uintptr(n), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(w), nil
}

// SendMore is send(2) with MSG_MORE, made as Write is: the kernel holds a
// partial segment for what the caller sends next (a response head before
// its sendfile body), so the two leave in full segments.
func SendMore(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_MORE, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
