//go:build !linux

package poll

import "time"

// Poller is unavailable on this platform; New always fails, so callers
// choose their portable fallback.
type Poller struct{}

// New returns ErrUnsupported on platforms without epoll.
func New(maxEvents int) (*Poller, error) { return nil, ErrUnsupported }

// Add is unavailable on this platform.
func (p *Poller) Add(fd int) error { return ErrUnsupported }

// AddRead is unavailable on this platform.
func (p *Poller) AddRead(fd int) error { return ErrUnsupported }

// Remove is unavailable on this platform.
func (p *Poller) Remove(fd int) error { return ErrUnsupported }

// Wake is a no-op on this platform.
func (p *Poller) Wake() {}

// Wait is unavailable on this platform.
func (p *Poller) Wait(dst []Event, timeout time.Duration) ([]Event, error) {
	return dst, ErrUnsupported
}

// WaitParked is unavailable on this platform.
func (p *Poller) WaitParked(dst []Event, deadline time.Time) ([]Event, error) {
	return dst, ErrUnsupported
}

// WaitOwnThread fails: there is no epoll.
func (p *Poller) WaitOwnThread(dst []Event, timeout time.Duration) ([]Event, error) {
	return dst, ErrUnsupported
}

// Poll returns ErrUnsupported.
func (p *Poller) Poll(dst []Event) ([]Event, error) { return dst, ErrUnsupported }

// Close is a no-op on this platform.
func (p *Poller) Close() error { return nil }
