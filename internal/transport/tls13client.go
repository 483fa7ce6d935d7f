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

// clientHandover is a client TLS's state between its handshake and the
// handover.
type clientHandover struct {
	ready     *direct13 // keyed at sequence 0, waiting for a ticket; nil when none waits
	waits     bool      // a ClientSessionCache waits for a ticket
	ticket    bool      // the cache got this connection's ticket
	readMark  uint64    // recordsRead when the handshake ended
	writeMark uint64    // recordsWritten when the handshake ended
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
	c.d, c.tc = d, nil
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
