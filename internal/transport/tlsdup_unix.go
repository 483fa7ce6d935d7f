//go:build unix

package transport

import "golang.org/x/sys/unix"

// dupCloexec duplicates fd, close-on-exec as every descriptor Go opens.
func dupCloexec(fd int) (int, error) {
	return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
}

// errAgain is readFD's "nothing to read now".
var errAgain error = unix.EAGAIN

// readFD is read(2) on the handshake's dup, EINTR retried.
func readFD(fd uintptr, p []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		return n, nil
	}
}
