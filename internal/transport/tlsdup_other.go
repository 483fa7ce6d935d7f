//go:build !unix

package transport

import "errors"

var errUnix = errors.New("transport: tls handshakes need a unix socket")

// dupCloexec is unix-only: the event loops are.
func dupCloexec(fd int) (int, error) { return -1, errUnix }

// errAgain is readFD's "nothing to read now".
var errAgain = errors.New("would block")

// readFD is unix-only, as dupCloexec.
func readFD(fd uintptr, p []byte) (int, error) { return 0, errUnix }
