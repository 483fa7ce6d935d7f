package transport

import "errors"

// ErrWouldBlock is returned by Read when nothing can be read now and by
// Write when not everything could be written now: the caller waits for the
// poller to report the socket readable or writable and calls again.
var ErrWouldBlock = errors.New("transport: would block")

// Conn is one non-blocking connection as an event loop drives it. A Conn is
// used by one goroutine at a time.
type Conn interface {
	// Read fills p with the next bytes of the stream and returns how many.
	// It returns (0, ErrWouldBlock) when nothing is ready and (0, io.EOF)
	// after the peer's orderly close. Read never blocks.
	Read(p []byte) (int, error)

	// Write sends p and returns how much of it the transport took. With
	// ErrWouldBlock, the socket could not take everything now: once it is
	// writable, call Write again with p[n:]. A transport may take all of p
	// and still hold bytes of its own (TLS records); it then returns
	// (len(p), ErrWouldBlock), and Write(nil) flushes them, returning
	// ErrWouldBlock while some remain. Write never blocks.
	Write(p []byte) (int, error)

	// Buffered reports how many bytes Read can return without reading the
	// socket (a TLS transport decrypts whole records, and counts those not
	// yet decrypted by their length: an upper bound). It is 0 whenever Read
	// would return ErrWouldBlock. An edge-triggered loop must drain them:
	// no readiness event will announce them.
	Buffered() int

	// FD is the socket under the transport.
	FD() int
}
