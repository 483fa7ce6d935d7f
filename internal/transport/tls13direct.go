package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
)

// A server TLS connection's records after a TLS 1.3 handshake, without
// crypto/tls. crypto/tls does the handshake (certificates, key exchange,
// resumption, ALPN, every check); once it has ended, the connection keeps
// only the two directions' keys (tls13keys.go) and drops its tls.Conn,
// whose buffers keep the size the ClientHello grew them to and whose every
// record read allocates. Reads open records in the loop's buffer, writes
// seal them in the output buffer: nothing is allocated per record, and an
// idle connection holds the keys and the ConnectionState only.
//
// The handover is exact: the record reader gives crypto/tls one record at
// a time (recordConn.Read), so when the handshake returns the client's
// first application record, at sequence 0, is still in the connection's
// buffer; the server's records sealed under its application key during the
// handshake (session tickets) are counted by opening them
// (secretLog.recordsSealed), never assumed.

// direct13 is a TLS connection's record layer once crypto/tls has handed
// over.
type direct13 struct {
	in, out direction // in place: one allocation for the record layer
	// cs is crypto/tls's state of the connection, until DropConnectionState
	// keeps only what brief holds.
	cs    *tls.ConnectionState
	brief briefState
	// useless counts records in a row that carried no application data
	// (empty records, key updates): past maxUseless the peer is flooding.
	useless int32
	// skip counts the bytes still to come of a session ticket cut across
	// records (client: tickets may come, and are let go: one kept before
	// the handover serves the run's reconnections).
	skip int32
	// part holds the start of a handshake message cut at its record's
	// end (RFC 8446 5.1 allows it): what postHandshake reads of one, its
	// header and a KeyUpdate's one-byte body. (The small fields last:
	// the struct fits the allocator's 288-byte class.)
	part    [5]byte
	partLen uint8
	client  bool
}

// briefState is what a direct13 keeps of its ConnectionState after
// DropConnectionState: the fields a log line or a protocol switch reads.
type briefState struct {
	version, suite uint16
	resumed        bool
	protocol       string
}

func brief(cs *tls.ConnectionState) briefState {
	return briefState{version: cs.Version, suite: cs.CipherSuite, resumed: cs.DidResume, protocol: cs.NegotiatedProtocol}
}

// maxUseless is how many records without application data may come in a
// row (crypto/tls allows 16 too).
const maxUseless = 16

// TLS 1.3 inner content types and alerts used here.
const (
	typeAlert           = 21
	typeHandshake       = 22
	typeApplicationData = 23
	msgKeyUpdate        = 24
	msgNewSessionTicket = 4

	alertCloseNotify            = 0
	alertUnexpectedMessage      = 10
	alertBadRecordMAC           = 20
	alertRecordOverflow         = 22
	alertDecodeError            = 50
	alertIllegalParameter       = 47
	alertUserCanceled           = 90
	alertLevelWarning      byte = 1
	alertLevelFatal        byte = 2
)

// alertError is a fatal alert, sent or received.
type alertError struct {
	desc     byte
	received bool
}

func (e alertError) Error() string {
	if e.received {
		return fmt.Sprintf("tls: peer sent fatal alert %d", e.desc)
	}
	return fmt.Sprintf("tls: %s (alert %d sent)", alertText(e.desc), e.desc)
}

func alertText(desc byte) string {
	switch desc {
	case alertUnexpectedMessage:
		return "unexpected record or message"
	case alertBadRecordMAC:
		return "record failed authentication"
	case alertRecordOverflow:
		return "record too long"
	case alertDecodeError:
		return "malformed record"
	case alertIllegalParameter:
		return "illegal parameter"
	}
	return "error"
}

// errClosedWrite is Write after CloseNotify.
var errClosedWrite = errors.New("tls: write after close_notify")

// handOver moves c to direct13 after a successful handshake, on the
// handshake goroutine, which still owns c: when the connection is TLS 1.3
// on an AES-GCM suite, its secrets were logged and the records the server
// sealed under its new key can be counted. Otherwise crypto/tls keeps the
// record layer.
func (c *TLS) handOver() {
	s := c.rc.secrets
	c.rc.secrets = nil
	if s == nil || s.client == nil || s.server == nil || c.rc.recLeft != 0 {
		return
	}
	cs := c.tc.ConnectionState()
	suite, ok := suiteFor(cs.CipherSuite)
	if cs.Version != tls.VersionTLS13 || !ok {
		return
	}
	mine, theirs := s.server, s.client
	if c.isClient {
		mine, theirs = s.client, s.server
	}
	in, err := newDirection(suite, theirs)
	if err != nil {
		return
	}
	out, err := newDirection(suite, mine)
	if err != nil {
		return
	}
	if c.isClient {
		c.client.prepare(c, &direct13{in: *in, out: *out, cs: &cs, brief: brief(&cs), client: true})
		return
	}
	sealed, ok := s.recordsSealed(out)
	if !ok {
		return
	}
	out.seq = sealed
	c.d = &direct13{in: *in, out: *out, cs: &cs, brief: brief(&cs)}
	c.tc = nil
}

// readDirect is Read after the handover. It reads the socket until it
// would block or p is full, so that an edge-triggered loop that sees a
// short Read with nothing Buffered has drained the socket.
func (c *TLS) readDirect(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		rec, size := c.rc.wholeRecord()
		if size-recordHeaderLen > maxCiphertext13 {
			return n, c.fail(alertRecordOverflow)
		}
		if rec == nil {
			if n > 0 && c.rc.drained {
				return n, nil
			}
			err := c.rc.fill()
			switch {
			case err == nil:
				continue
			case errors.Is(err, errWouldBlock):
				if n > 0 {
					return n, nil
				}
				return 0, ErrWouldBlock
			case n > 0:
				return n, nil // the error comes with the next Read
			case err == io.EOF:
				// A close without close_notify: a truncation, which
				// HTTP/1.1's framing detects; reported as the end.
				c.rerr = io.EOF
			default:
				c.rerr = err
			}
			return 0, c.rerr
		}
		if rec[0] != 0x17 {
			return n, c.fail(alertUnexpectedMessage)
		}
		room := len(rec) - recordHeaderLen - aeadOverhead
		var dst []byte
		switch {
		case room < 0:
			return n, c.fail(alertDecodeError)
		case len(p)-n >= room:
			dst = p[n:n]
		case n > 0:
			return n, nil // the next Read takes it
		default:
			c.plain = plainPool.Get().(*[]byte)
			dst = (*c.plain)[:0]
		}
		typ, data, err := c.d.in.open(dst, rec)
		c.rc.consume(len(rec))
		switch {
		case err == errNoContentType:
			c.releasePlain()
			return n, c.fail(alertUnexpectedMessage)
		case err != nil:
			c.releasePlain()
			return n, c.fail(alertBadRecordMAC)
		case len(data) > maxPlaintext:
			c.releasePlain()
			return n, c.fail(alertRecordOverflow)
		}
		if typ == typeApplicationData && len(data) > 0 {
			if c.d.cutMessage() {
				// Nothing may come between the records of a handshake
				// message (RFC 8446 5.1).
				c.releasePlain()
				return n, c.fail(alertUnexpectedMessage)
			}
			c.d.useless = 0
			if c.plain != nil {
				c.pOff, c.pEnd = 0, len(data)
				return c.readPlain(p), nil
			}
			n += len(data)
			continue
		}
		err = c.control(typ, data) // before data's buffer goes back to its pool
		c.releasePlain()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// control handles a record without application data: an alert, a key
// update, a session ticket, an empty record.
func (c *TLS) control(typ byte, data []byte) error {
	c.d.useless++
	if c.d.useless > maxUseless || typ != typeHandshake && c.d.cutMessage() {
		return c.fail(alertUnexpectedMessage)
	}
	switch typ {
	case typeApplicationData:
		return nil // empty: allowed, and counted
	case typeAlert:
		if len(data) != 2 {
			return c.fail(alertDecodeError)
		}
		switch data[1] {
		case alertCloseNotify:
			c.rerr = io.EOF
			return io.EOF
		case alertUserCanceled:
			return nil // a warning, as crypto/tls takes it
		}
		c.rerr = alertError{desc: data[1], received: true}
		return c.rerr
	case typeHandshake:
		if len(data) == 0 {
			return c.fail(alertUnexpectedMessage) // RFC 8446 5.1
		}
		return c.postHandshake(data)
	}
	return c.fail(alertUnexpectedMessage)
}

// postHandshake handles the handshake messages of a record after the
// handshake: KeyUpdate from either side, which must end its record (RFC
// 8446 5.1), and NewSessionTicket from a server, let go (skipped by
// length). Either may be cut across records.
func (c *TLS) postHandshake(data []byte) error {
	for len(data) > 0 {
		if c.d.skip > 0 {
			k := min(int(c.d.skip), len(data))
			c.d.skip -= int32(k)
			data = data[k:]
			continue
		}
		msg, rest, whole := c.d.gather(data)
		if !whole {
			return nil // the rest comes in the next record
		}
		data = rest
		typ, n := msg[0], handshakeLen(msg)
		if typ == msgNewSessionTicket && c.d.client {
			c.d.skip = int32(n)
			continue
		}
		switch {
		case typ != msgKeyUpdate:
			return c.fail(alertUnexpectedMessage)
		case n != 1:
			return c.fail(alertDecodeError)
		case msg[4] > 1:
			return c.fail(alertIllegalParameter)
		case len(data) > 0:
			return c.fail(alertUnexpectedMessage) // a key change ends its record (RFC 8446 5.1)
		}
		if err := c.d.in.update(); err != nil {
			return c.fail(alertDecodeError)
		}
		if msg[4] == 1 && c.werr == nil {
			c.sendUpdate()
			c.flush() // a peer that only reads must still get it
		}
		return nil
	}
	return nil
}

// gather returns what postHandshake reads of the next handshake message
// (msgHead), from data and the part of it the previous record ended with,
// and the bytes after it; whole is false if data ends first, and then
// keeps what it has in d.part.
func (d *direct13) gather(data []byte) (msg, rest []byte, whole bool) {
	if d.partLen == 0 && len(data) >= 4 && len(data) >= msgHead(data) {
		n := msgHead(data)
		return data[:n], data[n:], true
	}
	for len(data) > 0 {
		d.part[d.partLen] = data[0]
		d.partLen++
		data = data[1:]
		if n := int(d.partLen); n >= 4 && n == msgHead(d.part[:n]) {
			d.partLen = 0
			return d.part[:n], data, true
		}
	}
	return nil, nil, false
}

// msgHead is how much of a handshake message (its 4-byte header at least)
// postHandshake reads: the header, and a KeyUpdate's one-byte body.
func msgHead(hdr []byte) int {
	if hdr[0] == msgKeyUpdate && handshakeLen(hdr) == 1 {
		return 5
	}
	return 4
}

// cutMessage reports whether a handshake message cut across records is
// still missing its rest.
func (d *direct13) cutMessage() bool { return d.partLen > 0 || d.skip > 0 }

// handshakeLen is the body length in a handshake message's 4-byte header
// (RFC 8446 4: type, then a 24-bit length).
func handshakeLen(hdr []byte) int {
	return int(hdr[1])<<16 | int(hdr[2])<<8 | int(hdr[3])
}

// fail sends a fatal alert best effort and keeps its error for Read and
// Write.
func (c *TLS) fail(desc byte) error {
	err := alertError{desc: desc}
	if c.werr == nil {
		c.sealControl(typeAlert, []byte{alertLevelFatal, desc})
		c.flush()
		c.werr = err
	}
	c.rerr = err
	return err
}

// sealControl appends a record of typ to the output buffer.
func (c *TLS) sealControl(typ byte, data []byte) {
	r := &c.rc
	if r.out == nil {
		r.out = outPool.Get().(*[]byte)
	}
	if b, err := c.d.out.seal(*r.out, typ, data); err == nil {
		*r.out = b
	}
}

// sendUpdate seals our KeyUpdate (not asking for one back) and moves our
// key on: asked by the peer, or after keyUpdateEvery records.
func (c *TLS) sendUpdate() {
	c.sealControl(typeHandshake, []byte{msgKeyUpdate, 0, 0, 1, 0})
	if err := c.d.out.update(); err != nil {
		c.werr = err
	}
}

// writeDirect is Write after the handover: the same contract, with records
// sealed in the output buffer, at most writeChunk of p held at a time.
func (c *TLS) writeDirect(p []byte) (int, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	r := &c.rc
	taken := 0
	for taken < len(p) {
		if r.out == nil {
			r.out = outPool.Get().(*[]byte)
		}
		end := min(len(p), taken+writeChunk)
		for taken < end {
			if c.d.out.seq >= keyUpdateEvery {
				c.sendUpdate()
			}
			m := min(end-taken, maxPlaintext)
			b, err := c.d.out.seal(*r.out, typeApplicationData, p[taken:taken+m])
			if err != nil {
				c.werr = err
				return taken, err
			}
			*r.out = b
			taken += m
		}
		if err := c.flush(); err != nil {
			return taken, err
		}
	}
	return taken, nil
}

// closeNotifyDirect seals close_notify and tries the socket once.
func (c *TLS) closeNotifyDirect() error {
	c.sealControl(typeAlert, []byte{alertLevelWarning, alertCloseNotify})
	c.werr = errClosedWrite
	return c.rc.flush()
}

// Quiet lets an idle connection's record keys rest: when neither
// direction opened or sealed a record since the previous Quiet, their
// AES-GCM states (about 1.5 KB for the two) are dropped, and the next
// record in either direction keys its own again from the traffic keys
// kept (an AES key schedule and GCM table, well under a microsecond). It
// reports whether both are dropped now. A connection whose records
// crypto/tls keeps is left as it is. Only the connection's owner may call
// it, between its reads and writes; called every few seconds it costs a
// busy connection nothing but the call.
func (c *TLS) Quiet() bool {
	if c.d == nil || c.state.Load() != stateReady {
		return false
	}
	in, out := c.d.in.quiet(), c.d.out.quiet()
	return in && out
}

// Rest drops the record keys' AES-GCM states now, as Quiet does after a
// quiet period, for a connection its owner knows is idle again (a
// WebSocket that only exchanged a ping and its pong): the next record in
// either direction keys its own again. A connection whose records
// crypto/tls keeps is left as it is. Only the connection's owner may call
// it, between its reads and writes.
func (c *TLS) Rest() {
	if c.d == nil || c.state.Load() != stateReady {
		return
	}
	c.d.in.rest()
	c.d.out.rest()
}

// KeysHeld reports which directions hold their AES-GCM state now (after
// the handover: a connection whose records crypto/tls keeps reports
// both). For tests and diagnostics; only the connection's owner may call
// it.
func (c *TLS) KeysHeld() (in, out bool) {
	if c.d == nil {
		return true, true
	}
	return c.d.in.aead != nil, c.d.out.aead != nil
}
