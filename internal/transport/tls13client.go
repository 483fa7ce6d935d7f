package transport

import (
	"crypto/tls"
	"os"
)

// directRecords says whether TLS 1.3 connections take their records over
// from crypto/tls after the handshake (tls13direct.go). The environment
// variable GUST_TLS_RECORDS=crypto/tls keeps crypto/tls's record layer on
// every connection, server and client, for A/B measurements.
var directRecords = os.Getenv("GUST_TLS_RECORDS") != "crypto/tls"

// A client cannot hand over right after its handshake like a server: the
// server's session tickets come after it, and only crypto/tls can turn one
// into a session that a reconnection resumes. So a client with a
// ClientSessionCache leaves the records to crypto/tls until it has stored
// a ticket (the cache's Put, seen through a per-connection wrapper), then
// hands over at the end of that Read, once crypto/tls holds no part of a
// record: its sequence numbers are the records crypto/tls read and wrote
// since the handshake. Later tickets are let go. A server that sends no
// ticket leaves the connection on crypto/tls's records.
//
// Until then every record is opened here too, before crypto/tls reads it
// (peek): only application data and whole session tickets may come, so
// that crypto/tls's keys are still the first ones and its sequence
// numbers are the counts. A key update, a change_cipher_spec, an alert, a
// ticket cut across records: the connection keeps crypto/tls's records.

// clientHandover is a client TLS's state between its handshake and the
// handover.
type clientHandover struct {
	ready     *direct13 // keyed at sequence 0, waiting for a ticket; nil when none waits
	waits     bool      // a ClientSessionCache waits for a ticket
	ticket    bool      // the cache got this connection's ticket
	readMark  uint64    // recordsRead when the handshake ended
	writeMark uint64    // recordsWritten when the handshake ended
	peeked    uint64    // records since the handshake opened by peek
}

// watchClient returns the config of one client connection: config's
// clone, with a KeyLogWriter that keeps the connection's secrets and a
// ClientSessionCache that says when it stored a ticket.
func (c *TLS) watchClient(config *tls.Config) *tls.Config {
	c.rc.secrets = &secretLog{next: config.KeyLogWriter}
	per := config.Clone()
	per.KeyLogWriter = c.rc.secrets
	if per.ClientSessionCache != nil && !per.SessionTicketsDisabled {
		per.ClientSessionCache = ticketWatch{per.ClientSessionCache, &c.client.ticket}
		c.client.waits = true
	}
	return per
}

// prepare is called on the handshake goroutine with d keyed: the handover
// happens now without a session cache, else once a ticket is kept.
func (h *clientHandover) prepare(c *TLS, d *direct13) {
	h.readMark, h.writeMark = c.rc.recordsRead, c.rc.recordsWritten
	h.ready = d
	c.rc.watch = h
	h.handOver(c)
}

// handOver moves c to its prepared direct13 if it may now: a ticket kept
// (or none awaited) and no record begun in crypto/tls.
func (h *clientHandover) handOver(c *TLS) {
	if (h.waits && !h.ticket) || c.rc.recLeft != 0 {
		return
	}
	d := h.ready
	d.in.seq = c.rc.recordsRead - h.readMark
	d.out.seq = c.rc.recordsWritten - h.writeMark
	h.ready = nil
	c.rc.watch = nil
	c.d, c.tc = d, nil
}

// peek opens, on a copy, the record crypto/tls is starting (whole: see
// recordConn.Read), and gives the handover up on any record but
// application data or whole session tickets.
func (h *clientHandover) peek(rec []byte) {
	if h.ready == nil {
		return // given up already
	}
	in := h.ready.in
	in.seq = h.peeked
	typ, data, err := in.open(nil, rec)
	h.peeked++
	if rec[0] != 0x17 || err != nil || !(typ == typeApplicationData || typ == typeHandshake && wholeTickets(data)) {
		h.ready = nil
	}
}

// wholeTickets reports whether data is one or more whole NewSessionTicket
// messages.
func wholeTickets(data []byte) bool {
	for len(data) > 0 {
		if len(data) < 4 || data[0] != msgNewSessionTicket {
			return false
		}
		n := 4 + handshakeLen(data)
		if len(data) < n {
			return false
		}
		data = data[n:]
	}
	return true
}

// ticketWatch is a ClientSessionCache that notes a stored ticket.
type ticketWatch struct {
	tls.ClientSessionCache
	stored *bool
}

// Put stores cs and notes it (a nil cs deletes, and is not noted).
func (w ticketWatch) Put(key string, cs *tls.ClientSessionState) {
	w.ClientSessionCache.Put(key, cs)
	if cs != nil {
		*w.stored = true
	}
}
