//go:build linux

package server

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// sockRead and sockWrite are read(2) and write(2) on the server's
// non-blocking sockets, made without telling the Go scheduler (as
// RawSyscall does): they never block, and at one call per request the
// scheduler's bookkeeping around a system call (and the monitor thread
// taking the P away from a loop whose write ran past 20 us, then the
// loop waiting to get it back) costs more than the call saves.
func sockRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func sockWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
