package transport

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// recordHeaderLen is the size of a TLS record header: type, version, length.
const recordHeaderLen = 5

// recordSize is the size of the record whose header starts hdr: the header
// and the length it declares.
func recordSize(hdr []byte) int {
	return recordHeaderLen + (int(hdr[3])<<8 | int(hdr[4]))
}

// recordTypeHandshake starts every ClientHello.
const recordTypeHandshake = 0x16

const (
	// inBufSize holds a 16 KiB response's records in one read(2).
	inBufSize = 32 << 10
	// outBufSize holds the ciphertext of one writeChunk of plaintext and
	// its record headers and tags, even with crypto/tls's small first records.
	outBufSize = writeChunk + 4<<10
)

// errWouldBlock is what recordConn.Read returns to crypto/tls when no
// ciphertext is ready. It is a temporary net.Error, and crypto/tls does not
// keep temporary read errors: in Go 1.26's crypto/tls/conn.go,
// readRecordOrCCS (lines 626-636 for the record header and 677-682 for its
// body) calls c.in.setErrorLocked only when
// `e, ok := err.(net.Error); !ok || !e.Temporary()`, and returns the error
// otherwise, with the bytes already read left in c.rawInput. The next
// tls.Conn.Read starts again where this one stopped. Write errors, on the
// other hand, are always kept (halfConn.setErrorLocked wraps net.Errors in a
// permanentError), so recordConn.Write never fails: it buffers.
var errWouldBlock error = wouldBlockError{}

type wouldBlockError struct{}

func (wouldBlockError) Error() string   { return "transport: tls record would block" }
func (wouldBlockError) Timeout() bool   { return false }
func (wouldBlockError) Temporary() bool { return true }

// Pools of record buffers: a connection holds one only while it has bytes in
// it, so an idle connection holds none.
var (
	inPool    = sync.Pool{New: func() any { b := make([]byte, inBufSize); return &b }}
	outPool   = sync.Pool{New: func() any { b := make([]byte, 0, outBufSize); return &b }}
	plainPool = sync.Pool{New: func() any { b := make([]byte, maxCiphertext13); return &b }}
)

// recordConn is the net.Conn under a tls.Conn. During the handshake it does
// blocking I/O on a dup of the socket (hs); after it, Read hands over
// ciphertext read from the inner Conn without blocking and Write appends
// ciphertext to an output buffer that TLS.Write flushes.
//
// Read never hands crypto/tls bytes past the end of the record it is
// reading: crypto/tls would keep them in its own buffer, where Buffered
// could not see them.
type recordConn struct {
	inner Conn
	hs    *os.File        // the dup during the handshake, nil after
	hsRaw syscall.RawConn // hs's descriptor, read through Go's poller

	in           *[]byte // ciphertext not yet given to crypto/tls, nil when none
	inOff, inEnd int
	recLeft      int     // bytes of the current record crypto/tls has still to get, header included
	checkFirst   bool    // a server checks that the first byte can start a TLS record
	notTLS       bool    // it could not
	out          *[]byte // ciphertext not yet written to the socket, nil when none
	outOff       int
	eof          bool // the inner Conn reported io.EOF
	drained      bool // the last non-blocking read was short: the socket was empty
	// secrets collects the TLS 1.3 secrets during the handshake
	// (tls13secrets.go); nil after it.
	secrets *secretLog
	// recordsRead counts the records begun for crypto/tls; recordsWritten
	// the records it wrote after the handshake: a client's sequence
	// numbers when it hands over later (tls13client.go).
	recordsRead, recordsWritten uint64
	// watch is a client's handover waiting for a ticket: it sees each
	// record crypto/tls starts after the handshake (whole, then).
	watch *clientHandover
	// pass is the handshake's place in handshakeGate, nil after it.
	pass *gatePass
}

// Read gives crypto/tls the next ciphertext bytes of the current record.
// After the handshake it starts a record only once the whole of it is
// held, so crypto/tls never keeps part of one (a client's handover opens
// each record before crypto/tls reads it: tls13client.go).
func (r *recordConn) Read(p []byte) (int, error) {
	for r.inEnd-r.inOff == 0 || (r.recLeft == 0 && !r.startable()) {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	b := *r.in
	if r.recLeft == 0 {
		r.recLeft = recordSize(b[r.inOff:])
		r.recordsRead++
		if r.watch != nil {
			r.watch.peek(b[r.inOff : r.inOff+r.recLeft])
		}
	}
	n := min(len(p), r.inEnd-r.inOff, r.recLeft)
	copy(p, b[r.inOff:r.inOff+n])
	r.inOff += n
	r.recLeft -= n
	if r.inOff == r.inEnd {
		r.releaseIn()
	}
	return n, nil
}

// startable reports whether crypto/tls may start the record at the front:
// its header is held, and after the handshake the whole record.
func (r *recordConn) startable() bool {
	if r.hs != nil {
		return r.inEnd-r.inOff >= recordHeaderLen
	}
	rec, _ := r.wholeRecord()
	return rec != nil
}

// fill reads more ciphertext: from the dup, blocking, during the handshake;
// from the inner Conn, without blocking, after it.
func (r *recordConn) fill() error {
	if r.eof {
		return io.EOF
	}
	if r.hs != nil {
		return r.fillBlocking()
	}
	r.takeIn()
	room := len(*r.in) - r.inEnd
	n, err := r.inner.Read((*r.in)[r.inEnd:])
	r.drained = n < room
	return r.filled(n, err)
}

// fillBlocking reads the dup through Go's poller, taking a buffer only once
// bytes are there: a handshake stalled by its peer holds no record buffer
// (crypto/tls keeps the partial record in its own).
func (r *recordConn) fillBlocking() error {
	var n int
	var rerr error
	err := r.hsRaw.Read(func(fd uintptr) bool {
		r.takeIn()
		n, rerr = readFD(fd, (*r.in)[r.inEnd:])
		if rerr == errAgain {
			if r.inEnd == r.inOff {
				r.releaseIn()
			}
			r.pass.waiting()
			return false
		}
		r.pass.woke()
		return true
	})
	if err != nil {
		if r.in != nil && r.inEnd == r.inOff {
			r.releaseIn()
		}
		return err // the deadline's, or the dup closed by Release
	}
	if rerr != nil {
		n = 0
	} else if n == 0 {
		rerr = io.EOF
	}
	return r.filled(n, rerr)
}

// takeIn makes sure r.in is a buffer with room at its end.
func (r *recordConn) takeIn() {
	if r.in == nil {
		r.in = inPool.Get().(*[]byte)
	} else if r.inOff > 0 {
		r.inEnd = copy(*r.in, (*r.in)[r.inOff:r.inEnd])
		r.inOff = 0
	}
}

// filled accounts for n bytes read into r.in and maps the read's error.
func (r *recordConn) filled(n int, err error) error {
	if n > 0 {
		if r.checkFirst && r.inEnd == 0 {
			r.checkFirst = false
			if (*r.in)[0] != recordTypeHandshake {
				r.notTLS = true
				r.inEnd += n
				return ErrNotTLS
			}
		}
		r.inEnd += n
		return nil
	}
	if r.inEnd == r.inOff {
		r.releaseIn()
	}
	switch {
	case errors.Is(err, ErrWouldBlock):
		return errWouldBlock
	case err == io.EOF:
		r.eof = true
		return io.EOF
	case err == nil:
		return io.ErrNoProgress
	}
	return err
}

// wholeRecord returns the first whole record held (header and body), or
// nil, and the record's size as its header says (0 before a whole header):
// for the direct record layer, which never reads part of a record.
func (r *recordConn) wholeRecord() (rec []byte, size int) {
	if r.in == nil || r.inEnd-r.inOff < recordHeaderLen {
		return nil, 0
	}
	b := (*r.in)[r.inOff:r.inEnd]
	size = recordSize(b)
	if len(b) < size {
		return nil, size
	}
	return b[:size], size
}

// consume drops the first n bytes held: a record the direct layer opened.
func (r *recordConn) consume(n int) {
	r.inOff += n
	if r.inOff == r.inEnd {
		r.releaseIn()
	}
}

func (r *recordConn) releaseIn() {
	if r.in != nil {
		inPool.Put(r.in)
	}
	r.in, r.inOff, r.inEnd = nil, 0, 0
}

// buffered counts the bytes of the whole records (and the rest of the
// current one) held for crypto/tls: an upper bound of the plaintext they
// hold, and 0 when crypto/tls could not make progress without the socket.
func (r *recordConn) buffered() int {
	if r.in == nil {
		return 0
	}
	b := (*r.in)[r.inOff:r.inEnd]
	whole, left := 0, r.recLeft
	for {
		if left == 0 {
			if len(b) < recordHeaderLen {
				return whole
			}
			left = recordSize(b)
		}
		if len(b) < left {
			return whole
		}
		whole += left
		b = b[left:]
		left = 0
	}
}

// Write takes the ciphertext crypto/tls writes: straight to the dup during
// the handshake, into the output buffer after it.
func (r *recordConn) Write(p []byte) (int, error) {
	if r.hs != nil {
		if r.secrets != nil {
			r.secrets.sent(p)
		}
		if r.pass != nil {
			r.pass.spoke = true
		}
		return r.hs.Write(p)
	}
	if r.out == nil {
		r.out = outPool.Get().(*[]byte)
	}
	*r.out = append(*r.out, p...)
	// crypto/tls writes whole records.
	for b := p; len(b) >= recordHeaderLen; {
		r.recordsWritten++
		b = b[min(len(b), recordSize(b)):]
	}
	return len(p), nil
}

// flush writes the held ciphertext to the inner Conn: nil once all of it is
// written, ErrWouldBlock while some remains, or the socket's error.
func (r *recordConn) flush() error {
	if r.out == nil {
		return nil
	}
	n, err := r.inner.Write((*r.out)[r.outOff:])
	r.outOff += n
	if r.outOff == len(*r.out) {
		r.releaseOut()
		return nil
	}
	if err == nil {
		err = io.ErrShortWrite
	}
	return err
}

func (r *recordConn) releaseOut() {
	if r.out != nil && cap(*r.out) == outBufSize {
		*r.out = (*r.out)[:0]
		outPool.Put(r.out)
	}
	r.out, r.outOff = nil, 0
}

// pending reports the ciphertext bytes not yet written to the socket.
func (r *recordConn) pending() int {
	if r.out == nil {
		return 0
	}
	return len(*r.out) - r.outOff
}

func (r *recordConn) release() {
	r.releaseIn()
	r.releaseOut()
}

// Close is a no-op: the event loop owns the socket. tls.Conn.Close is never
// called; Release ends a TLS connection.
func (r *recordConn) Close() error { return nil }

// LocalAddr and RemoteAddr are unknown to the record layer: crypto/tls does
// not use them, and the loop has the socket's addresses.
func (r *recordConn) LocalAddr() net.Addr { return noAddr{} }

// RemoteAddr: see LocalAddr.
func (r *recordConn) RemoteAddr() net.Addr { return noAddr{} }

// SetDeadline and the others are no-ops: the handshake's deadline is set on
// the dup, and after it nothing blocks. (tls.Conn.CloseWrite sets a write
// deadline around close_notify.)
func (r *recordConn) SetDeadline(time.Time) error { return nil }

// SetReadDeadline is a no-op, as SetDeadline.
func (r *recordConn) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline is a no-op, as SetDeadline.
func (r *recordConn) SetWriteDeadline(time.Time) error { return nil }

type noAddr struct{}

func (noAddr) Network() string { return "tcp" }
func (noAddr) String() string  { return "" }
