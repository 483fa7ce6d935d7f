//go:build linux

package server

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// hijack detaches the connection for a handler that takes it over (on its
// worker): earlier pipelined responses are written, the socket leaves the
// loop's poller, and the handler gets a net.Conn on a duplicate of the
// descriptor. The loop closes the original when the worker gives the
// connection back, which leaves the handler's socket open.
func (c *conn) hijack(ctx *Ctx) (net.Conn, error) {
	if len(ctx.pending) > 0 {
		if err := c.writeAll(ctx.pending); err != nil {
			return nil, err
		}
		ctx.pending = ctx.pending[:0]
	}
	fd, err := unix.FcntlInt(uintptr(c.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("server: hijack: %w", err)
	}
	var nc net.Conn
	if c.tls != nil {
		nc, err = c.hijackTLS(fd) // tlshijack_linux.go
	} else {
		f := os.NewFile(uintptr(fd), "gust-hijacked")
		nc, err = net.FileConn(f) // a descriptor of its own, in Go's poller
		f.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("server: hijack: %w", err)
	}
	c.hijacked.Store(true)
	// Out of the loop's epoll set before the loop closes its descriptor:
	// a registration lives as long as any descriptor of the socket does.
	c.l.poller.Remove(c.fd)
	c.onClientGone(nil) // the request's context no longer follows the socket
	return nc, nil
}
