package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// ErrHandshakeStarted is returned by a second Handshake.
var ErrHandshakeStarted = errors.New("transport: tls handshake already started")

// Handshake starts the TLS handshake on a short-lived goroutine (one kept
// from an earlier handshake when one waits: handshakers.go) that does
// blocking I/O (through Go's poller) on a dup of the socket, and returns at
// once. It must run where reads may block because crypto/tls keeps a
// handshake error forever: a "would block" in the middle would be fatal.
//
// When the handshake ends, successfully or not, done is called on that
// goroutine (unless Release came first): it must only wake the loop (queue
// the TLS, write to an eventfd) and may call HandshakeDone, nothing else.
// The loop then calls HandshakeDone. The loop may also see the handshake
// done through HandshakeDone before the callback's wake-up arrives, and
// serve and close the connection first: it must find the connection by the
// *TLS, not by its fd, which may have been reused by then. Until then Read and Write return ErrWouldBlock and touch
// nothing, so readiness events of the socket can be ignored; an edge may
// have passed unseen meanwhile, so once the handshake succeeded the loop
// Reads (Buffered may be > 0: a client's request that came with its last
// flight) and Writes as if the socket were readable and writable.
//
// A non-zero deadline bounds the whole handshake (a server passes
// now+ReadHeaderTimeout); the handshake then fails with an error for which
// errors.Is(err, os.ErrDeadlineExceeded) holds.
func (c *TLS) Handshake(deadline time.Time, done func(*TLS)) error {
	if !c.state.CompareAndSwap(stateNew, stateHandshaking) {
		return ErrHandshakeStarted
	}
	c.done = done
	runHandshake(func() { c.handshake(deadline) })
	return nil
}

// HandshakeDone reports, without blocking, whether the handshake ended and
// its error: nil for success, ErrNotTLS (errors.Is) for a client that did
// not speak TLS, the deadline's, the peer's or crypto/tls's error otherwise.
func (c *TLS) HandshakeDone() (bool, error) {
	switch c.state.Load() {
	case stateReady:
		return true, nil
	case stateFailed:
		return true, c.hsErr
	}
	return false, nil
}

// handshake runs on its own goroutine; the record buffers are its own until
// it stores the final state.
func (c *TLS) handshake(deadline time.Time) {
	c.rc.pass = newGatePass() // runHandshake let it in
	// The socket is dup'ed under mu, and only if not released: a
	// handshake may wait in the gate's queue, and a released TLS's socket
	// is closed by its loop, its descriptor soon another connection's.
	var hs *os.File
	var raw syscall.RawConn
	var err error
	c.mu.Lock()
	released := c.released
	if !released {
		hs, err = dupFile(c.rc.inner.FD())
		if err == nil {
			if raw, err = hs.SyscallConn(); err != nil {
				hs.Close()
			}
		}
		if err == nil {
			c.rc.hs, c.rc.hsRaw = hs, raw
		}
	}
	c.mu.Unlock()
	if err == nil && !released {
		if !deadline.IsZero() {
			hs.SetDeadline(deadline)
		}
		err = c.tc.Handshake()
		if err == nil {
			c.handOver()
		}
		hs.Close()
	}
	c.rc.pass.done() // before the loop may have c.rc
	c.rc.pass = nil
	c.mu.Lock()
	c.rc.hs, c.rc.hsRaw = nil, nil
	released = c.released
	switch {
	case released:
		err = ErrReleased
	case c.rc.notTLS:
		err = ErrNotTLS
	}
	if err != nil {
		c.hsErr = fmt.Errorf("tls handshake: %w", err)
		c.rc.release()
		c.state.Store(stateFailed)
	} else {
		c.state.Store(stateReady)
	}
	c.mu.Unlock()
	if !released && c.done != nil {
		c.done(c)
	}
}

// ConnectionState returns crypto/tls's state of the connection after a
// successful handshake (for the net/http adapter's Request.TLS), and the
// zero value before.
func (c *TLS) ConnectionState() tls.ConnectionState {
	if c.state.Load() != stateReady {
		return tls.ConnectionState{}
	}
	if c.d != nil {
		if c.d.cs != nil {
			return *c.d.cs
		}
		b := &c.d.brief
		return tls.ConnectionState{Version: b.version, HandshakeComplete: true, DidResume: b.resumed, CipherSuite: b.suite,
			NegotiatedProtocol: b.protocol}
	}
	return c.tc.ConnectionState()
}

// DropConnectionState lets crypto/tls's state of the connection go (about
// 0.3 KB with the keying-material exporter it holds) once nobody will ask
// for it: a connection switched to WebSocket. ConnectionState then gives
// the version, suite, ALPN protocol and resumption only, and its
// ExportKeyingMaterial must not be called. A connection whose records
// are crypto/tls's keeps it. Only the connection's owner may call it.
func (c *TLS) DropConnectionState() {
	if c.d != nil && c.state.Load() == stateReady {
		c.d.cs = nil
	}
}

// NegotiatedProtocol returns the protocol chosen by ALPN ("http/1.1", "h2"),
// or "" if none was.
func (c *TLS) NegotiatedProtocol() string { return c.ConnectionState().NegotiatedProtocol }

// Version returns the TLS version of the connection (tls.VersionTLS13, ...).
func (c *TLS) Version() uint16 { return c.ConnectionState().Version }

// CipherSuite returns the connection's cipher suite (tls.CipherSuiteName
// names it).
func (c *TLS) CipherSuite() uint16 { return c.ConnectionState().CipherSuite }

// DidResume reports whether the handshake resumed an earlier session.
func (c *TLS) DidResume() bool { return c.ConnectionState().DidResume }

// dupFile returns the socket fd duplicated as an *os.File that Go's poller
// drives: reads and writes park the goroutine, not a thread, and honour
// deadlines. The socket is already non-blocking, so os.NewFile registers it
// with the poller as it is. (net.FileConn would call File.Fd, which makes
// the shared file description blocking for a moment: the loop's own reads
// of the socket could then block.)
func dupFile(fd int) (*os.File, error) {
	d, err := dupCloexec(fd)
	if err != nil {
		return nil, fmt.Errorf("dup socket for the handshake: %w", err)
	}
	return os.NewFile(uintptr(d), "tls-handshake"), nil
}
