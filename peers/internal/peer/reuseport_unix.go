//go:build unix

package peer

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// setReusePort sets SO_REUSEPORT on a socket before it binds
// (net.ListenConfig.Control).
func setReusePort(network, address string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	}); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("SO_REUSEPORT on %s: %w", address, serr)
	}
	return nil
}
