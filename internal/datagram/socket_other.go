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
	// Buffer is the socket buffers' size each way.
	Buffer int
}

// Batch is the messages of one batched read or write.
type Batch struct{}

// Features says what the kernel offers a datagram transport.
type Features struct{ GSO, GRO, ECN bool }

// Open fails with ErrUnsupported.
func Open(netip.AddrPort, Options) (*Socket, error) { return nil, ErrUnsupported }

// SocketOf returns a Socket that cannot be used here.
func SocketOf(int) Socket { return Socket{} }

// FD returns -1: there is no socket.
func (s *Socket) FD() int { return -1 }

// ReadBatch fails with ErrUnsupported.
func (s *Socket) ReadBatch(*Batch) (int, error) { return 0, ErrUnsupported }

// WriteBatch fails with ErrUnsupported.
func (s *Socket) WriteBatch(*Batch, int) (int, error) { return 0, ErrUnsupported }

// NewBatch returns an empty Batch.
func NewBatch(n, size int) *Batch { return &Batch{} }

// Len returns 0.
func (b *Batch) Len() int { return 0 }

// Buffer returns nil.
func (b *Batch) Buffer(int) []byte { return nil }

// Datagram returns nil.
func (b *Batch) Datagram(int) []byte { return nil }

// SetConnected does nothing.
func (b *Batch) SetConnected(int, int) {}

// Set does nothing.
func (b *Batch) Set(int, int, netip.AddrPort) {}

// MaxSegments is the most datagrams one GSO send may carry.
const MaxSegments = 64

// EnableGRO fails with ErrUnsupported.
func EnableGRO(int) error { return ErrUnsupported }

// EnableECN fails with ErrUnsupported.
func EnableECN(int) error { return ErrUnsupported }

// ECN returns 0.
func (b *Batch) ECN(int) uint8 { return 0 }

// SetECN does nothing.
func (b *Batch) SetECN(int, uint8) {}

// ECN returns 0.
func (g *Segments) ECN() uint8 { return 0 }

// SetECN does nothing.
func (g *Segments) SetECN(uint8) {}

// WithSegments returns b.
func (b *Batch) WithSegments() *Batch { return b }

// Segment returns 0.
func (b *Batch) Segment(int) int { return 0 }

// Segments is a GSO send; it cannot be made here.
type Segments struct{}

// NewSegments returns an empty Segments.
func NewSegments(int) *Segments { return &Segments{} }

// Reset does nothing.
func (g *Segments) Reset() {}

// Len returns 0.
func (g *Segments) Len() int { return 0 }

// Fits returns false.
func (g *Segments) Fits(int) bool { return false }

// Append does nothing.
func (g *Segments) Append([]byte) {}

// WriteSegments fails with ErrUnsupported.
func (s *Socket) WriteSegments(*Segments) (bool, error) { return false, ErrUnsupported }

// Close does nothing: there is no socket.
func (s *Socket) Close() error { return nil }

// Probe reports no offload.
func (s *Socket) Probe() Features { return Features{} }
