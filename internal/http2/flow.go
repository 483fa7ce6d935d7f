package http2

// SendWindow is the flow-control credit an endpoint may still spend sending
// DATA on one stream or on the connection (RFC 9113 section 6.9). It can go
// negative when the peer lowers SETTINGS_INITIAL_WINDOW_SIZE below what is
// already in flight.
type SendWindow struct{ n int64 }

// NewSendWindow returns a window holding initial bytes of credit.
func NewSendWindow(initial uint32) SendWindow { return SendWindow{n: int64(initial)} }

// Available returns the credit left; zero or less means sending must wait.
func (w *SendWindow) Available() int64 { return w.n }

// Consume spends n bytes of credit on DATA sent.
func (w *SendWindow) Consume(n int) { w.n -= int64(n) }

// Add applies a WINDOW_UPDATE increment. It returns false, leaving the
// window unchanged, when the window would exceed 2^31-1: a
// FLOW_CONTROL_ERROR, on the stream or the connection the window belongs to.
func (w *SendWindow) Add(incr uint32) bool {
	if w.n+int64(incr) > MaxWindowSize {
		return false
	}
	w.n += int64(incr)
	return true
}

// Adjust applies a change of the peer's SETTINGS_INITIAL_WINDOW_SIZE to an
// open stream's window (new minus old, RFC 9113 section 6.9.2). It returns
// false when the window would exceed 2^31-1, a connection FLOW_CONTROL_ERROR.
func (w *SendWindow) Adjust(delta int64) bool {
	if w.n+delta > MaxWindowSize {
		return false
	}
	w.n += delta
	return true
}

// RecvWindow is the flow-control credit an endpoint granted its peer on one
// stream or on the connection, and the consumed bytes it has not yet given
// back with WINDOW_UPDATE. It gives credit back in batches of at least half
// the window, so a steady stream of DATA costs one WINDOW_UPDATE per half
// window rather than one per frame.
type RecvWindow struct {
	size    int64 // the window the endpoint keeps open
	avail   int64 // credit the peer still holds
	unacked int64 // bytes consumed but not yet returned
}

// NewRecvWindow returns a window of size bytes, all granted to the peer.
func NewRecvWindow(size uint32) RecvWindow {
	return RecvWindow{size: int64(size), avail: int64(size)}
}

// Receive accounts for a DATA frame's flow-controlled length (payload and
// padding). It returns false when the frame exceeds the credit granted: a
// FLOW_CONTROL_ERROR.
func (w *RecvWindow) Receive(n uint32) bool {
	if int64(n) > w.avail {
		return false
	}
	w.avail -= int64(n)
	return true
}

// Consume marks n received bytes as consumed and returns the increment to
// send in a WINDOW_UPDATE now, or 0 while the bytes to return are fewer
// than half the window.
func (w *RecvWindow) Consume(n uint32) uint32 {
	w.unacked += int64(n)
	if w.unacked < w.size/2 || w.unacked == 0 {
		return 0
	}
	incr := w.unacked
	w.unacked = 0
	w.avail += incr
	return uint32(incr)
}

// Available returns the credit the peer still holds.
func (w *RecvWindow) Available() int64 { return w.avail }
