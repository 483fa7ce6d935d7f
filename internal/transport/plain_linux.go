//go:build linux

package transport

import (
	"io"

	"github.com/gust-http/gust/internal/sys"
	"golang.org/x/sys/unix"
)

// Plain is a Conn on a non-blocking TCP socket: each Read and Write is one
// system call.
type Plain struct {
	fd int
}

// NewPlain returns a Conn on the non-blocking socket fd.
func NewPlain(fd int) *Plain { return &Plain{fd: fd} }

// Reset points p at another socket, so a pooled Plain can be reused.
func (p *Plain) Reset(fd int) { p.fd = fd }

// Read reads from the socket.
func (p *Plain) Read(b []byte) (int, error) {
	for {
		n, err := sys.Read(p.fd, b)
		switch {
		case err == nil && n == 0 && len(b) > 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case err == unix.EAGAIN:
			return 0, ErrWouldBlock
		case err == unix.EINTR:
			continue
		}
		return 0, err
	}
}

// ReadStamped is Read that also returns when the kernel received what it
// read (sys.ReadStamped: nanoseconds of the system clock, 0 without a
// stamp); the socket needs sys.EnableRXStamps. oob is scratch space for
// the stamp's control message.
func (p *Plain) ReadStamped(b, oob []byte) (int, int64, error) {
	for {
		n, rx, err := sys.ReadStamped(p.fd, b, oob)
		switch {
		case err == nil && n == 0 && len(b) > 0:
			return 0, 0, io.EOF
		case err == nil:
			return n, rx, nil
		case err == unix.EAGAIN:
			return 0, 0, ErrWouldBlock
		case err == unix.EINTR:
			continue
		}
		return 0, 0, err
	}
}

// Write writes to the socket.
func (p *Plain) Write(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, err := sys.Write(p.fd, b[written:])
		switch {
		case err == nil:
			written += n
		case err == unix.EAGAIN:
			return written, ErrWouldBlock
		case err == unix.EINTR:
		default:
			return written, err
		}
	}
	return written, nil
}

// Buffered is always 0: a plain socket keeps nothing of its own.
func (p *Plain) Buffered() int { return 0 }

// FD returns the socket.
func (p *Plain) FD() int { return p.fd }
