package quic

// connFlow is connection-level flow control both ways (RFC 9000 section
// 4.1): what the peer lets this end send, and the window this end gives.
type connFlow struct {
	sendMax     uint64 // the peer's MAX_DATA
	sent        uint64 // new stream bytes sent, all streams
	blockedAt   uint64 // the limit a DATA_BLOCKED was sent at
	blockedOwed bool

	window      uint64
	recvMax     uint64 // the MAX_DATA given
	recvHighest uint64 // the sum of every stream's highest offset received
	consumed    uint64 // bytes read by the application
	maxDataOwed bool
}

func (f *connFlow) init(window uint64) {
	f.window, f.recvMax = window, window
}

// credit returns how many new bytes may be sent.
func (f *connFlow) credit() uint64 { return f.sendMax - f.sent }

// onReceive accounts for a stream's highest offset growing by n bytes,
// FLOW_CONTROL_ERROR past the window given.
func (f *connFlow) onReceive(n uint64) error {
	f.recvHighest += n
	if f.recvHighest > f.recvMax {
		return &TransportError{Code: FlowControlError, Reason: "data past MAX_DATA"}
	}
	return nil
}

// onConsumed accounts for bytes read, and owes a MAX_DATA once half the
// window is used.
func (f *connFlow) onConsumed(n uint64) {
	f.consumed += n
	if f.consumed+f.window/2 > f.recvMax {
		f.recvMax = f.consumed + f.window
		f.maxDataOwed = true
	}
}

// onMaxData takes a MAX_DATA frame; smaller values are ignored.
func (f *connFlow) onMaxData(v uint64) {
	if v > f.sendMax {
		f.sendMax = v
	}
}

// noteBlocked owes a DATA_BLOCKED when new data waits on the limit.
func (f *connFlow) noteBlocked() {
	if f.credit() == 0 && f.blockedAt != f.sendMax+1 {
		f.blockedAt = f.sendMax + 1
		f.blockedOwed = true
	}
}
