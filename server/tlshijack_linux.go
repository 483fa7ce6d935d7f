//go:build linux

package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/transport"
)

// hijackedTLS is the net.Conn a handler gets when it hijacks a TLS
// connection. A tls.Conn cannot be rebuilt around a session crypto/tls
// already holds, so it keeps the connection's transport.TLS and makes it
// blocking: the TLS's plain transport is pointed at a duplicate of the
// socket, registered with Go's poller, and a Read or Write that would block
// waits there for readiness (honouring deadlines) and tries again. The
// loop closes only its own descriptor.
type hijackedTLS struct {
	mu     sync.Mutex // one TLS call at a time: Read and Write may come from two goroutines
	t      *transport.TLS
	f      *os.File // the duplicate, in Go's poller
	raw    syscall.RawConn
	local  net.Addr
	remote net.Addr
	closed bool
}

// hijackTLS returns the net.Conn of a hijacked TLS connection on fd, a
// duplicate of c's socket that becomes the transport's.
func (c *conn) hijackTLS(fd int) (net.Conn, error) {
	// os.NewFile keeps a non-blocking descriptor non-blocking and adds it
	// to Go's poller (net.FileConn would not register it any better and
	// would make the shared file description blocking for a moment).
	f := os.NewFile(uintptr(fd), "gust-hijacked-tls")
	raw, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("server: hijack: %w", err)
	}
	h := &hijackedTLS{t: c.tls, f: f, raw: raw, remote: c.remoteAddr()}
	if sa, err := unix.Getsockname(fd); err == nil {
		h.local = sockaddrToTCP(sa)
	}
	// From here on, the transport reads and writes the duplicate: the
	// loop may close c.fd (and the kernel reuse its number) at any time.
	c.plain.Reset(fd)
	return h, nil
}

// errHijackedClosed is returned by a hijacked TLS connection after Close.
var errHijackedClosed = net.ErrClosed

// Read reads decrypted bytes, waiting for the socket as needed.
func (h *hijackedTLS) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	try := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.closed {
			rerr = errHijackedClosed
			return true
		}
		n, rerr = h.t.Read(p)
		return rerr != transport.ErrWouldBlock
	}
	if try() {
		return n, rerr
	}
	err := h.raw.Read(func(uintptr) bool { return try() })
	if err != nil {
		return 0, h.opError("read", err)
	}
	return n, rerr
}

// Write encrypts and writes all of p, waiting for the socket as needed.
func (h *hijackedTLS) Write(p []byte) (int, error) {
	written := 0
	var werr error
	try := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.closed {
			werr = errHijackedClosed
			return true
		}
		rest := p[written:]
		if len(rest) == 0 {
			rest = nil // all taken, some held: flush
		}
		var n int
		n, werr = h.t.Write(rest)
		written += n
		return werr != transport.ErrWouldBlock
	}
	if !try() {
		if err := h.raw.Write(func(uintptr) bool { return try() }); err != nil {
			return written, h.opError("write", err)
		}
	}
	return written, werr
}

// Close sends close_notify (waiting for it to go out, up to a second) and
// closes the socket.
func (h *hijackedTLS) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return errHijackedClosed
	}
	err := h.t.CloseNotify()
	h.mu.Unlock()
	if err == transport.ErrWouldBlock {
		h.f.SetWriteDeadline(time.Now().Add(time.Second))
		h.Write(nil)
	}
	h.mu.Lock()
	h.closed = true
	h.t.Release()
	h.mu.Unlock()
	return h.f.Close()
}

// opError wraps a poller error as net.Conn errors look, keeping
// os.ErrDeadlineExceeded visible to errors.Is and net.Error's Timeout.
func (h *hijackedTLS) opError(op string, err error) error {
	if errors.Is(err, os.ErrClosed) {
		err = net.ErrClosed
	}
	if errors.Is(err, io.EOF) {
		return err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: h.local, Addr: h.remote, Err: err}
}

// LocalAddr returns the server's address of the connection.
func (h *hijackedTLS) LocalAddr() net.Addr { return h.local }

// RemoteAddr returns the client's address.
func (h *hijackedTLS) RemoteAddr() net.Addr { return h.remote }

// SetDeadline bounds Read and Write, as on any net.Conn.
func (h *hijackedTLS) SetDeadline(t time.Time) error { return h.f.SetDeadline(t) }

// SetReadDeadline bounds Read.
func (h *hijackedTLS) SetReadDeadline(t time.Time) error { return h.f.SetReadDeadline(t) }

// SetWriteDeadline bounds Write.
func (h *hijackedTLS) SetWriteDeadline(t time.Time) error { return h.f.SetWriteDeadline(t) }
