//go:build !unix

package peer

import (
	"fmt"
	"runtime"
	"syscall"
)

// setReusePort refuses: SO_REUSEPORT is a Unix socket option.
func setReusePort(network, address string, c syscall.RawConn) error {
	return fmt.Errorf("-reuseport: SO_REUSEPORT is not available on %s", runtime.GOOS)
}
