package quic

import (
	"errors"
	"time"
)

// SealRawFrames returns a 1-RTT packet to the peer carrying frames as
// given, protected with c's keys and numbered as c's next packet, for a
// test peer to put on the wire what the engine never sends (an unknown
// frame type, stream data past the peer's window). Nothing in it is
// retransmitted; c's own packets go on after it.
func (c *Conn) SealRawFrames(frames []byte, now time.Time) ([]byte, error) {
	s := c.spaces[spaceApp]
	if !c.handshakeComplete || s.write == nil || s.dropped {
		return nil, errors.New("quic: no 1-RTT keys to seal with")
	}
	pn := s.nextPN
	s.nextPN++
	b := AppendShortHeader(make([]byte, 0, 64+len(frames)+Overhead), false, c.keys.phase, c.cids.dcid(), pn, 4)
	pnOff := len(b) - 4
	b = append(b, frames...)
	for len(b)-pnOff < 4+sampleLen {
		b = append(b, 0) // PADDING, for the header protection's sample
	}
	out, err := s.write.Protect(b, pnOff, pn)
	if err != nil {
		return nil, err
	}
	c.loss.onSent(spaceApp, pn, now, len(out), false, false, noFrames)
	return out, nil
}

// CloseTransport closes the connection as Close does, but with a
// transport error code: CONNECTION_REFUSED from a server refusing a
// handshake, say, which Close would carry as APPLICATION_ERROR until the
// handshake is done (RFC 9000 section 10.2.3).
func (c *Conn) CloseTransport(code TransportErrorCode, reason string, now time.Time) {
	if c.state >= stateClosing {
		return
	}
	c.closeWith(&CloseError{Code: uint64(code), Reason: reason}, now)
}

// PeerTransportParameters returns the transport parameters a client's
// peer sent (its limits: flow control windows, stream counts, idle
// timeout), for a test peer that means to go past them; the zero value
// before they arrive, and on a server's connection, which keeps only the
// few it needs after the handshake. Its byte slices are views into the
// connection's state.
func (c *Conn) PeerTransportParameters() TransportParameters {
	if c.peerParams == nil {
		return TransportParameters{}
	}
	return *c.peerParams
}
