//go:build linux

package server

import (
	"crypto/rand"
	"net/netip"
	"os"
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/mailbox"
	"github.com/gust-http/gust/internal/quic"
)

// A loop's HTTP/3 side: its UDP socket read with recvmmsg and written
// with sendmmsg, the connections routed by connection ID, their timers in
// a heap, and the responses workers post.

const (
	h3BatchLen = 32   // datagrams per recvmmsg and per sendmmsg
	h3SlotSize = 2048 // a datagram's buffer: past any path's MTU
	// h3ReadTurns bounds the batches read in one turn, so that a flood on
	// the socket leaves the loop time for its TCP connections; the loop
	// polls again without waiting while the socket has more.
	h3ReadTurns = 16
	// h3RetryAbove is how many handshakes in progress on a loop make it
	// ask new clients to prove their address first (a Retry, RFC 9000
	// section 8.1.2): under a flood of Initials from spoofed addresses,
	// a Retry costs one small datagram and no state. Below it, clients
	// are spared the round trip.
	h3RetryAbove = 64
	// h3MaxHandshakes bounds the handshakes in progress on a loop, as the
	// TLS handshake gate bounds TCP's; Initials past it are dropped (their
	// clients send again).
	h3MaxHandshakes = 1024
	// h3TokenAge is how long a Retry token is good for.
	h3TokenAge = 10 * time.Second
	// h3MinInitial is the smallest datagram an Initial may arrive in (RFC
	// 9000 section 14.1).
	h3MinInitial = 1200
)

// h3loop is one loop's HTTP/3 endpoint. Only the loop touches it, but for
// posts, whose mailbox other goroutines post to.
type h3loop struct {
	l       *loop
	sh      *h3shared
	cfg     quic.Config // sh.cfg with this loop's stateless reset key
	sock    datagram.Socket
	fd      int
	in      *datagram.Batch
	out     *datagram.Batch
	outN    int
	router  *datagram.Router[*h3conn]
	tokens  *quic.TokenProtector
	retries retryBudget // Retries a second under a flood (h3retry_linux.go)
	timers  h3timers
	all     []*h3conn // the open connections, each at its index
	dirty   []*h3conn // connections with work for this turn's end
	// dirtyNext is how many of dirty this turn has served; runq are the
	// streams whose handlers start on the loop this turn (Auto), runNext
	// how many have started.
	dirtyNext int
	runq      []*h3stream
	runNext   int
	more      bool // the socket had more to read when the turn's batches ran out

	handshaking int // connections whose handshake is in progress
	conns       int // connections open

	posts mailbox.Box[*h3stream] // streams whose workers have output for the loop

	readBuf []byte // a stream's bytes, read from QUIC
	resp    []byte // a response's frames, built on the loop
	section []byte // a response's field section
	fields  fieldScratch
	ctx     *Ctx // the Inline handlers' Ctx
	free    []*h3stream

	counters *counters // the server's
}

func newH3Loop(l *loop, sock datagram.Socket, sh *h3shared) (*h3loop, error) {
	tokens, err := quic.NewTokenProtector(sh.tokenKey)
	if err != nil {
		return nil, err
	}
	h := &h3loop{
		l: l, sh: sh, sock: sock, fd: sock.FD(),
		in:       datagram.NewBatch(h3BatchLen, h3SlotSize),
		out:      datagram.NewBatch(h3BatchLen, h3SlotSize),
		router:   datagram.NewRouter[*h3conn](h3ConnIDLen),
		tokens:   tokens,
		readBuf:  make([]byte, 16<<10),
		ctx:      &Ctx{srv: l.srv},
		counters: &l.srv.counters,
	}
	h.cfg = sh.cfg
	// ECN where the kernel hands the socket each datagram's codepoint:
	// the connections then mark theirs and slow down on CE
	// (GUST_QUIC_ECN=off leaves it out, for A/B runs, as gust load's).
	h.cfg.ECN = os.Getenv("GUST_QUIC_ECN") != "off" && datagram.EnableECN(h.fd) == nil
	h.cfg.StatelessResetKey = quic.NewStatelessResetKey(sh.resetKey)
	h.cfg = h.cfg.WithDefaults() // the loop's connections share it
	h.posts.Init(l.poller.Wake)
	return h, nil
}

// readable reads the datagrams waiting on the socket and feeds each to
// its connection.
func (h *h3loop) readable(now int64) {
	t := h.l.e.loopTime(now)
	h.more = false
	for turn := 0; turn < h3ReadTurns; turn++ {
		n, err := h.sock.ReadBatch(h.in)
		if err != nil || n == 0 {
			return
		}
		for i := range n {
			h.datagram(h.in.Datagram(i), h.in.Addr(i), quic.ECN(h.in.ECN(i)), t)
		}
		if n < h3BatchLen {
			return
		}
	}
	h.more = true
}

// datagram hands one datagram, which came with the ECN codepoint mark, to
// its connection, or starts one, or answers it without one.
func (h *h3loop) datagram(d []byte, from netip.AddrPort, mark quic.ECN, t time.Time) {
	if c, ok := h.router.Route(d); ok {
		before := c.qc.PacketsOpened()
		c.qc.ReceiveECN(d, mark, t)
		if c.peer != from && c.qc.PacketsOpened() > before {
			// A NAT rebinding: answer where the client now is, once a
			// packet from there proved to be the client's (a forged
			// datagram with a known connection ID moves nothing).
			c.peer = from
		}
		h.touch(c)
		return
	}
	if len(d) == 0 {
		return
	}
	if !quic.IsLongHeader(d[0]) {
		h.statelessReset(d, from)
		return
	}
	hdr, err := quic.ParseLongHeader(d)
	if err != nil {
		h.counters.quicDropped.Add(1)
		return
	}
	if hdr.Type == quic.PacketOtherVersion {
		if len(d) >= h3MinInitial { // smaller ones cannot be a client's first (RFC 9000 section 6.1)
			h.versionNegotiation(&hdr, from)
		}
		return
	}
	if hdr.Type != quic.PacketInitial || len(d) < h3MinInitial || h.l.e.draining.Load() {
		h.counters.quicDropped.Add(1)
		return
	}
	h.accept(d, &hdr, from, t)
}

// accept starts a connection for a client's first Initial, after a Retry
// when the loop has many handshakes in progress.
func (h *h3loop) accept(d []byte, hdr *quic.LongHeader, from netip.AddrPort, t time.Time) {
	if h.handshaking >= h3MaxHandshakes {
		h.counters.quicDropped.Add(1)
		return
	}
	var odcid []byte
	if len(hdr.Token) > 0 {
		id, err := h.tokens.Open(hdr.Token, quic.TokenRetry, from.Addr(), t, h3TokenAge)
		if err != nil {
			h.counters.quicDropped.Add(1) // a forged, stale or foreign token: RFC 9000 section 8.1.3 lets it go
			return
		}
		odcid = append([]byte(nil), id...)
	} else if h.handshaking >= h3RetryAbove {
		if !h.retries.take(h.l.turnNow) {
			h.counters.quicDropped.Add(1) // past the Retry budget: the client sends again
			return
		}
		h.retry(hdr, from, t)
		return
	}
	qc, err := quic.NewServerConn(&h.cfg, hdr.DstConnID, odcid, t)
	if err != nil {
		h.counters.quicDropped.Add(1)
		return
	}
	dcid := string(hdr.DstConnID) // before Receive, which decrypts d in place
	qc.Receive(d, t)
	if !qc.ReceivedAny() {
		qc.Abandon()                  // its TLS goroutine ends with it
		h.counters.quicDropped.Add(1) // not an Initial of this client's: keep no state for it
		return
	}
	c := newH3Conn(h, qc, from)
	c.handshakeBy = h.l.turnNow + int64(h.l.srv.cfg.ReadHeaderTimeout)
	c.route(dcid)
	c.syncConnIDs()
	h.handshaking++
	h.conns++
	h.counters.open.Add(1)
	h.counters.quicOpen.Add(1)
	h.counters.accepted.Add(1)
	h.touch(c)
}

// retry answers an Initial with a Retry carrying a token bound to the
// client's address and its original Destination Connection ID.
func (h *h3loop) retry(hdr *quic.LongHeader, from netip.AddrPort, t time.Time) {
	var scid [h3ConnIDLen]byte
	if _, err := rand.Read(scid[:]); err != nil {
		return
	}
	token := h.tokens.AppendToken(nil, quic.TokenRetry, from.Addr(), hdr.DstConnID, t)
	pkt := quic.AppendRetry(h.slot(), 0, hdr.SrcConnID, scid[:], token, hdr.DstConnID)
	h.queue(pkt, from)
	h.counters.quicRetries.Add(1)
}

// statelessReset answers a short-header packet for no connection this
// loop knows (one that closed, or from before a restart) with a stateless
// reset, so that its client stops at once rather than at its idle
// timeout (RFC 9000 section 10.3). A datagram too small to be answered
// without making a loop of resets is dropped.
func (h *h3loop) statelessReset(d []byte, from netip.AddrPort) {
	size := quic.StatelessResetSize(len(d))
	if size == 0 || len(d) < 1+h3ConnIDLen {
		return
	}
	token := h.cfg.StatelessResetKey.Token(d[1 : 1+h3ConnIDLen])
	h.queue(quic.AppendStatelessReset(h.slot(), token, size), from)
	h.counters.quicResets.Add(1)
}

// versionNegotiation answers a long header of a version other than 1.
func (h *h3loop) versionNegotiation(hdr *quic.LongHeader, from netip.AddrPort) {
	h.queue(quic.AppendVersionNegotiation(h.slot(), 0, hdr.SrcConnID, hdr.DstConnID, quic.Version1), from)
}

// touch queues c for the end of the turn: events, datagrams, timer.
func (h *h3loop) touch(c *h3conn) {
	if !c.dirty {
		c.dirty = true
		h.dirty = append(h.dirty, c)
	}
}

// turn runs the timers due, takes what workers posted, and serves the
// connections touched: their events, then their datagrams.
func (h *h3loop) turn(now int64) {
	t := h.l.e.loopTime(now)
	for {
		c := h.timers.due(now)
		if c == nil {
			break
		}
		if !c.established && now >= c.handshakeBy {
			// Given up, as the TLS handshake gate bounds TCP's: one
			// CONNECTION_CLOSE, and no closing period kept for it.
			c.qc.Close(h3NoError, "handshake timed out", t)
			c.send(t)
			c.end()
			continue
		}
		c.qc.OnTimeout(t)
		h.touch(c)
	}
	h.takePosts()
	// In steps whose progress lives here, not on the stack: a handler
	// started in the second step may be moved off the loop (Auto), and
	// the loop's new goroutine then finishes the turn from where it was.
	for h.dirtyNext < len(h.dirty) {
		c := h.dirty[h.dirtyNext]
		h.dirtyNext++
		if !c.gone {
			c.serve(t)
		}
	}
	for h.runNext < len(h.runq) {
		st := h.runq[h.runNext]
		h.runq[h.runNext] = nil
		h.runNext++ // before the handler: the loop may go on without it
		if st.c != nil && !st.c.gone {
			st.startAuto()
		}
	}
	h.runq, h.runNext = h.runq[:0], 0
	for i, c := range h.dirty {
		h.dirty[i] = nil
		c.dirty = false
		if c.gone {
			continue
		}
		c.send(t)
		at := h.atOf(c.qc.NextTimeout())
		if !c.established && !c.qc.Closed() && (at == 0 || c.handshakeBy < at) {
			at = c.handshakeBy
		}
		h.timers.set(c, at)
	}
	h.dirty, h.dirtyNext = h.dirty[:0], 0
	h.flush()
}

// atOf converts a QUIC deadline to the loop's clock (0: none).
func (h *h3loop) atOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(1, int64(t.Sub(h.l.e.base)))
}

// wakeAt is when the loop must wake for a QUIC timer, 0 for none.
func (h *h3loop) wakeAt() int64 { return h.timers.next() }

// slot returns the next send slot's buffer, empty, flushing the batch
// first if it is full.
func (h *h3loop) slot() []byte {
	if h.outN == h3BatchLen {
		h.flush()
	}
	return h.out.Buffer(h.outN)[:0]
}

// queue makes d, built in slot()'s buffer, the next datagram to send.
func (h *h3loop) queue(d []byte, to netip.AddrPort) {
	buf := h.out.Buffer(h.outN)
	if len(d) > len(buf) {
		h.counters.quicDropped.Add(1)
		return
	}
	if len(d) > 0 && &d[0] != &buf[0] {
		copy(buf, d)
	}
	h.out.Set(h.outN, len(d), to)
	h.outN++
}

// queueECN is queue for a connection's datagram, to be sent with the ECN
// codepoint mark.
func (h *h3loop) queueECN(d []byte, to netip.AddrPort, mark quic.ECN) {
	n := h.outN
	h.queue(d, to)
	if h.outN > n {
		h.out.SetECN(n, uint8(mark))
	}
}

// flush sends the queued datagrams. What the kernel does not take (its
// buffer full) is dropped: QUIC's loss recovery sends it again.
func (h *h3loop) flush() {
	for from := 0; from < h.outN; {
		k, err := h.sock.WriteBatchFrom(h.out, from, h.outN-from)
		if err != nil || k == 0 {
			h.counters.quicDropped.Add(int64(h.outN - from))
			break
		}
		from += k
	}
	h.outN = 0
}

// takePosts moves what workers wrote into their streams.
func (h *h3loop) takePosts() {
	h.posts.Take()
	for st, ok := h.posts.Next(); ok; st, ok = h.posts.Next() {
		c := st.c // before takePosted, which may release the stream
		st.takePosted()
		if !c.gone {
			h.touch(c)
		}
	}
}

// drain is the loop's part of Shutdown for HTTP/3: each connection is
// told with a GOAWAY that no new request will be served, and closes once
// its requests in flight are done.
func (h *h3loop) drain(now int64) {
	t := h.l.e.loopTime(now)
	for _, c := range h.all {
		c.goAway(t)
		h.touch(c)
	}
	h.turn(now)
}

// closeAll closes every connection at once (Close, or Shutdown's
// deadline) and the socket.
func (h *h3loop) closeAll(now int64) {
	t := h.l.e.loopTime(now)
	for len(h.all) > 0 {
		c := h.all[len(h.all)-1]
		c.qc.Close(0x100, "", t) // H3_NO_ERROR
		c.send(t)
		c.end()
	}
	h.flush()
	h.sock.Close()
	h.posts.Close()
}
