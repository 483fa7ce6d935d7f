//go:build !linux

package datagram

import (
	"errors"
	"net/netip"
)

// ErrUnsupported is what Open returns where batched datagrams are not
// implemented: they need Linux's recvmmsg and sendmmsg.
var ErrUnsupported = errors.New("datagram: UDP sockets on the event loops need Linux")

// Socket is a UDP socket for one event loop; it cannot be made here.
type Socket struct{}

// Options says how Open makes a socket.
type Options struct {
	// ReusePort sets SO_REUSEPORT.
	ReusePort bool
}

// Batch is the messages of one batched read or write.
type Batch struct{}

// Features says what the kernel offers a datagram transport.
type Features struct{ GSO, GRO bool }

// Open fails with ErrUnsupported.
func Open(netip.AddrPort, Options) (*Socket, error) { return nil, ErrUnsupported }
