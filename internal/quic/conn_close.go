package quic

import (
	"errors"
	"time"
)

// Close closes the connection with an application error code and reason:
// a CONNECTION_CLOSE goes out with the next datagrams, then the
// connection waits three PTOs before it is Closed.
func (c *Conn) Close(code uint64, reason string, now time.Time) {
	if c.state >= stateClosing {
		return
	}
	c.closeWith(&CloseError{Application: true, Code: code, Reason: reason}, now)
}

// fail closes the connection on a transport error of this end.
func (c *Conn) fail(err error, now time.Time) {
	if c.state >= stateClosing {
		return
	}
	var te *TransportError
	if !errors.As(err, &te) {
		te = &TransportError{Code: InternalError, Reason: err.Error()}
	}
	c.closeWith(&CloseError{Code: uint64(te.Code), Reason: te.Reason, Cause: te.Cause}, now)
}

// closeWith enters the closing state with the frame of e.
func (c *Conn) closeWith(e *CloseError, now time.Time) {
	c.err = e
	c.state = stateClosing
	c.ending().at = now.Add(3 * c.loss.pto(c.peerMaxAckDelay()))
	sp := spaceInitial
	for s := spaceApp; ; s-- {
		if c.spaces[s].write != nil && !c.spaces[s].dropped && (s != spaceApp || c.handshakeComplete) {
			sp = s
			break
		}
		if s == spaceInitial {
			break
		}
	}
	c.closeSpace = sp
	reason := e.Reason
	if len(reason) > 256 {
		reason = reason[:256]
	}
	f := Frame{Type: FrameConnectionClose, Code: e.Code, Data: []byte(reason)}
	if e.Application {
		if sp == spaceApp {
			f.Type = FrameConnectionCloseApp
		} else {
			f.Code, f.Data = uint64(ApplicationError), nil
		}
	}
	c.ending().frame = AppendFrame(nil, &f)
	c.closeOwed = c.spaces[sp].write != nil
	c.event(EventConnClosed, 0)
	c.events[len(c.events)-1].Err = e
}

// drain enters the draining state: the peer closed, or reset.
func (c *Conn) drain(err error, now time.Time) {
	if c.state >= stateDraining {
		return
	}
	if c.state != stateClosing {
		c.err = err
		c.event(EventConnClosed, 0)
		c.events[len(c.events)-1].Err = err
	}
	c.state = stateDraining
	c.ending().at = now.Add(3 * c.loss.pto(c.peerMaxAckDelay()))
}

// ErrAbandoned is the error of a connection its owner abandoned.
var ErrAbandoned = errors.New("quic: connection abandoned")

// Abandon ends the connection at once, sending nothing more and keeping
// no closing period: for a listener that stops keeping a connection's
// state (one whose handshake it gave up, or everything at its own close,
// after Close has had its CONNECTION_CLOSE sent). crypto/tls's handshake
// goroutine, if one is running, ends with it; a connection dropped
// without Close or Abandon keeps that goroutine.
func (c *Conn) Abandon() { c.finish(ErrAbandoned) }

// finish ends the connection for good.
func (c *Conn) finish(err error) {
	if c.state == stateClosed {
		return
	}
	if c.err == nil {
		c.err = err
		c.event(EventConnClosed, 0)
		c.events[len(c.events)-1].Err = err
	}
	c.state = stateClosed
	if c.tls != nil {
		c.tls.Close()
	}
}
