//go:build linux

package server

import (
	"crypto/tls"
	"net"
	"net/netip"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
)

// HTTP/3 error codes the server sends (RFC 9114 section 8.1).
const (
	h3NoError          = 0x100
	h3InternalError    = 0x102
	h3StreamCreation   = 0x103
	h3RequestRejected  = 0x10b
	h3RequestCancelled = 0x10c
)

// h3conn is one QUIC connection of a loop and its HTTP/3 streams. Only
// the loop touches it.
type h3conn struct {
	h    *h3loop
	qc   *quic.Conn
	peer netip.AddrPort
	srv  http3.Server

	streams map[uint64]*h3stream // the request streams open, made at the first
	routes  []string             // the connection IDs routed to it
	issued  uint64               // qc.LocalConnIDsIssued when the routes were last made
	idx     int                  // in h.all
	at      int64                // its timer's deadline, on the loop's clock
	ti      int                  // its index in the timer heap, -1 when not in it
	// handshakeBy is when a handshake still in progress is given up
	// (ReadHeaderTimeout after the first Initial), on the loop's clock.
	handshakeBy int64

	dirty, gone bool
	established bool // the handshake completed
	control     uint64
	goingAway   bool
	goAwayID    uint64 // the stream ID the GOAWAY named: from it up, requests are refused
	nextStream  uint64 // the client's next bidirectional stream: what a GOAWAY names
	tls         *tls.ConnectionState
}

func newH3Conn(h *h3loop, qc *quic.Conn, from netip.AddrPort) *h3conn {
	c := &h3conn{h: h, qc: qc, peer: from, ti: -1, idx: len(h.all)}
	c.srv.Settings = http3.DefaultSettings()
	c.srv.Settings.MaxFieldSectionSize = uint64(h.l.srv.cfg.MaxHeaderBytes)
	h.all = append(h.all, c)
	return c
}

// route sends c the datagrams addressed to the connection ID in key.
func (c *h3conn) route(key string) {
	c.h.router.Add([]byte(key), c)
	c.routes = append(c.routes, key)
}

// syncConnIDs routes the connection IDs c issued since the last call:
// the routes are made again from its IDs in use, so that retired ones
// stop routing, the client's first (which its Initials carry until the
// handshake ends) kept until then.
func (c *h3conn) syncConnIDs() {
	n := c.qc.LocalConnIDsIssued()
	if n == c.issued {
		return
	}
	c.issued = n
	keep := 0
	if !c.established && len(c.routes) > 0 {
		keep = 1 // the client's first Destination Connection ID
	}
	for _, id := range c.routes[keep:] {
		c.h.router.Remove([]byte(id))
	}
	c.routes = c.routes[:keep]
	for _, id := range c.qc.LocalConnIDs() {
		c.route(string(id))
	}
}

// serve handles what the connection reported since its last turn.
func (c *h3conn) serve(t time.Time) {
	for ev := c.qc.NextEvent(); ev.Kind != quic.EventNone; ev = c.qc.NextEvent() {
		switch ev.Kind {
		case quic.EventHandshakeDone:
			c.opened(t)
		case quic.EventStreamReadable:
			if quic.IsUniStream(ev.StreamID) {
				c.readUni(ev.StreamID, t)
			} else {
				c.readRequest(ev.StreamID, t)
			}
		case quic.EventStreamWritable:
			if st := c.streams[ev.StreamID]; st != nil {
				st.writeOut()
			}
		}
	}
	c.syncConnIDs()
	if c.streams != nil && len(c.streams) == 0 && c.qc.Quiet() {
		c.streams = nil // a quiet connection holds no map; the next request makes it
	}
	if c.goingAway && len(c.streams) == 0 && !c.qc.Closed() && c.qc.SendsAcked() {
		// Only once the client has the responses: a CONNECTION_CLOSE
		// would end what is still in flight, or not yet sent.
		c.qc.Close(h3NoError, "", t)
	}
	if c.qc.Closed() {
		c.end()
	}
}

// opened starts the server's side once the handshake is done: its
// control stream, with SETTINGS.
func (c *h3conn) opened(t time.Time) {
	c.established = true
	c.h.handshaking--
	id, err := c.qc.OpenStream(true)
	if err != nil {
		c.qc.Close(h3InternalError, "no stream for the control stream", t)
		return
	}
	c.control = id
	c.qc.Write(id, c.srv.Start(nil))
	if _, ok := c.h.l.srv.Handler.(*httpAdapter); ok {
		c.tls = c.qc.TLSState()
	}
	if c.h.l.e.draining.Load() {
		c.goAway(t)
	}
}

// readUni reads a unidirectional stream the client opened: its control
// stream, its QPACK streams, or one of a type to ignore.
func (c *h3conn) readUni(id uint64, t time.Time) {
	buf := c.h.readBuf
	for {
		n, fin, err := c.qc.Read(id, buf)
		if err != nil {
			fin, n = true, 0 // reset: for a critical stream, an error below
		}
		ignore, herr := c.srv.ReceiveUni(id, buf[:n], fin)
		if herr != nil {
			c.fail(herr, t)
			return
		}
		if ignore {
			c.qc.StopSending(id, h3StreamCreation)
			return
		}
		if fin || n == 0 {
			return
		}
	}
}

// readRequest reads a request stream and starts its handler once the
// request is whole.
func (c *h3conn) readRequest(id uint64, t time.Time) {
	st := c.streams[id]
	if st == nil {
		// A new stream, or (rarely) the late reset of one already
		// answered, whose Read then fails and which is dropped at once.
		// Streams may arrive out of order: the next one a GOAWAY names
		// is past the highest seen.
		c.nextStream = max(c.nextStream, id+4)
		if c.goingAway && id >= c.goAwayID {
			c.qc.StopSending(id, h3RequestRejected)
			c.qc.ResetStream(id, h3RequestRejected)
			return
		}
		st = c.h.newStream(c, id)
		if c.streams == nil {
			c.streams = make(map[uint64]*h3stream)
		}
		c.streams[id] = st
	}
	if st.started {
		c.discard(id)
		return
	}
	buf := c.h.readBuf
	for {
		n, fin, err := c.qc.Read(id, buf)
		if err != nil {
			st.abandon() // the client reset it
			return
		}
		if herr := st.rr.Receive(buf[:n], fin); herr != nil {
			if http3.IsBodyTooLarge(herr) && st.rr.HeadDone() {
				st.refuse(413)
				return
			}
			if _, conn := herr.(http3.ConnError); conn {
				c.fail(herr, t)
				return
			}
			c.qc.StopSending(id, uint64(http3.CodeOf(herr)))
			c.qc.ResetStream(id, uint64(http3.CodeOf(herr)))
			st.abandon()
			return
		}
		if st.rr.Done() {
			st.start()
			return
		}
		if !st.headIn && st.rr.HeadDone() && st.continueOrRefuse() {
			return
		}
		if fin || n == 0 {
			return
		}
	}
}

// discard reads and drops what arrives on a stream whose request is
// already in.
func (c *h3conn) discard(id uint64) {
	for {
		n, fin, err := c.qc.Read(id, c.h.readBuf)
		if err != nil || fin || n == 0 {
			return
		}
	}
}

// fail closes the connection with err's HTTP/3 error code.
func (c *h3conn) fail(err error, t time.Time) {
	c.qc.Close(uint64(http3.CodeOf(err)), err.Error(), t)
}

// goAway tells the client no request past those it has sent will be
// served (RFC 9114 section 5.2); the connection closes once they are
// answered.
func (c *h3conn) goAway(t time.Time) {
	if c.goingAway || !c.established {
		if !c.established {
			c.qc.Close(h3NoError, "", t) // nothing to wait for
		}
		return
	}
	c.goingAway, c.goAwayID = true, c.nextStream
	c.qc.Write(c.control, http3.AppendGoAway(nil, c.goAwayID))
}

// send queues the datagrams the connection has to send.
func (c *h3conn) send(t time.Time) {
	for {
		d, ok := c.qc.AppendDatagram(c.h.slot(), t)
		if !ok {
			return
		}
		c.h.queueECN(d, c.peer, c.qc.DatagramECN())
	}
}

// end forgets a closed connection: its routes, its timer, its streams.
func (c *h3conn) end() {
	if c.gone {
		return
	}
	c.gone = true
	c.qc.Abandon() // a connection not closed yet (Close, a handshake given up) lets its TLS go
	h := c.h
	for _, id := range c.routes {
		h.router.Remove([]byte(id))
	}
	h.timers.remove(c)
	last := len(h.all) - 1
	h.all[c.idx] = h.all[last]
	h.all[c.idx].idx = c.idx
	h.all[last] = nil
	h.all = h.all[:last]
	if !c.established {
		h.handshaking--
	}
	h.conns--
	h.counters.open.Add(-1)
	h.counters.quicOpen.Add(-1)
	for _, st := range c.streams {
		st.abandon()
	}
	c.streams = nil
}

// remoteAddr is the client's address, for Ctx.RemoteAddr.
func (c *h3conn) remoteAddr() net.Addr { return net.UDPAddrFromAddrPort(c.peer) }
