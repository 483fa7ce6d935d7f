//go:build !unix

package transport

import "errors"

// dupCloexec is unix-only: the event loops are.
func dupCloexec(fd int) (int, error) {
	return -1, errors.New("transport: tls handshakes need a unix socket")
}
