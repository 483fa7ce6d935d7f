package load

import (
	"net/netip"
	"os"
	"strconv"
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/poll"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/result"
)

// HTTP/3 on the loop. A connection's socket is a connected UDP socket and
// its transport the quicLink (h3link.go), so that reading, feeding,
// refilling and flushing are the round trip of every other protocol
// (roundtrip.go). What differs is here: the socket opens at once and the
// connection counts as connected when the QUIC handshake completes (it
// stays stHandshaking until then, fed on the loop, no goroutine), and the
// engine's own timers (ACK delay, loss detection, pacing, idle timeout)
// run from a heap of their own, keyed on each engine's NextTimeout.

// quicIdleTimeout is the idle timeout the client asks for; its
// connections send a PING when quiet for half of it (or of the server's,
// if shorter), so that a slow schedule's pauses do not end them.
const quicIdleTimeout = 30 * time.Second

// newQUICConfig returns the run's QUIC configuration: the TLS
// configuration offering "h3" by ALPN.
func (e *engine) newQUICConfig() *quic.Config {
	tc := e.tlsConfig.Clone()
	tc.NextProtos = []string{"h3"}
	cfg := &quic.Config{TLSConfig: tc, MaxIdleTimeout: quicIdleTimeout, KeepAlive: true, ECN: quicECN(e.offload)}
	// GUST_QUIC_KEY_UPDATE=N updates the keys every N packets, to try a
	// server's key updates; they are updated anyway before the AEAD's limit.
	if n, err := strconv.ParseUint(os.Getenv("GUST_QUIC_KEY_UPDATE"), 10, 64); err == nil {
		cfg.KeyUpdateEvery = n
	}
	ready := cfg.WithDefaults() // the run's connections share it
	return &ready
}

// quicECN says whether a run's QUIC connections use ECN: where the kernel
// hands readers the marks (f.ECN), unless GUST_QUIC_ECN=off.
func quicECN(f datagram.Features) bool {
	return f.ECN && os.Getenv("GUST_QUIC_ECN") != "off"
}

// probeOffload asks the kernel, on a socket made for the question,
// whether it offers UDP GSO and GRO.
func probeOffload() datagram.Features {
	s, err := datagram.Open(netip.AddrPortFrom(netip.IPv4Unspecified(), 0), datagram.Options{})
	if err != nil {
		return datagram.Features{}
	}
	defer s.Close()
	return s.Probe()
}

// connectQUIC opens c's UDP socket and starts its QUIC handshake.
func (l *loop) connectQUIC(c *conn, fd int, now int64) {
	if l.qio.gro && datagram.EnableGRO(fd) != nil {
		l.qio.gro = false // refused on this socket: say so rather than count on it
	}
	if l.qio.ecn && datagram.EnableECN(fd) != nil {
		l.qio.ecn = false // marks can be sent but not read: the server's would go uncounted
	}
	h := c.h3
	h.link.reset(fd)
	c.fd, c.tr = fd, &h.link
	c.state = stHandshaking
	c.connectStart = now
	l.watchConn(c)
	l.live++
	h.begin()
	if h.closedBy != nil {
		l.connectFailed(c, result.ErrConnect, now)
		return
	}
	l.flush(c, now)
}

// handleQUIC reacts to readiness of c's UDP socket: datagrams are read
// and fed as any transport's bytes are; a handshake that completes makes
// c ready, and whatever the engine has to say goes out.
func (l *loop) handleQUIC(c *conn, flags uint32, now int64) {
	if flags&(poll.Readable|poll.Hangup) == 0 {
		return
	}
	l.read(c, flags, now)
	l.quicProgress(c, now)
}

// quicProgress finishes a turn on c while its handshake is under way: c
// becomes ready once the handshake is done, and until then what the
// engine owes (ACKs, the rest of the handshake) goes out.
func (l *loop) quicProgress(c *conn, now int64) {
	if c.state != stHandshaking {
		return
	}
	if c.h3.ready {
		l.stats.connects++
		l.ready(c, now)
		return
	}
	l.flush(c, now)
}

// armQUIC puts c's engine's next timeout in the loop's QUIC heap.
func (l *loop) armQUIC(c *conn) {
	h := c.h3
	if h.link.qc == nil {
		l.qtimers.remove(h)
		return
	}
	t := h.link.qc.NextTimeout()
	if t.IsZero() {
		l.qtimers.remove(h)
		return
	}
	h.qat = int64(t.Sub(l.e.base))
	l.qtimers.push(h)
}

// fireQUICTimers runs the engines' timers that are due.
func (l *loop) fireQUICTimers(now int64) {
	for {
		h := l.qtimers.peek()
		if h == nil || h.qat > now {
			return
		}
		l.qtimers.remove(h)
		c := h.c
		l.dv = delivery{l: l, c: c, now: now}
		kind, ok := h.timeout(l.e.base.Add(time.Duration(now)), &l.dv)
		switch {
		case !ok && c.state == stHandshaking:
			if kind == result.ErrReadTimeout {
				kind = result.ErrConnectTimeout
			}
			l.connectFailed(c, kind, now)
		case !ok:
			l.fail(c, kind, now)
		case c.state == stHandshaking:
			l.quicProgress(c, now)
		default:
			l.refill(c, now)
		}
	}
}

// finishQUIC closes every QUIC connection still open at the end of the
// run, with H3_NO_ERROR, so that the server frees it at once, and counts
// its packets.
func (l *loop) finishQUIC() {
	if l.qio == nil {
		return
	}
	for _, c := range l.conns {
		h := c.h3
		if h == nil || h.link.qc == nil || c.fd < 0 {
			continue
		}
		h.closeConn()
		h.countEnd()
		h.link.qc.Abandon() // its CONNECTION_CLOSE is sent; nothing more is kept
		h.link.qc = nil
	}
}

// quicTimers is a binary min-heap of sessions keyed by qat, their engine's
// next timeout; each keeps its position in qidx.
type quicTimers []*h3session

func (q *quicTimers) push(s *h3session) {
	if s.qidx >= 0 {
		q.down(s.qidx)
		q.up(s.qidx)
		return
	}
	s.qidx = len(*q)
	*q = append(*q, s)
	q.up(s.qidx)
}

func (q quicTimers) peek() *h3session {
	if len(q) == 0 {
		return nil
	}
	return q[0]
}

func (q *quicTimers) remove(s *h3session) {
	i := s.qidx
	if i < 0 {
		return
	}
	old := *q
	last := len(old) - 1
	if i != last {
		old[i] = old[last]
		old[i].qidx = i
	}
	old[last] = nil
	*q = old[:last]
	s.qidx = -1
	if i != last {
		q.down(i)
		q.up(i)
	}
}

func (q quicTimers) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if q[p].qat <= q[i].qat {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q quicTimers) down(i int) {
	n := len(q)
	for {
		m := i
		if l := 2*i + 1; l < n && q[l].qat < q[m].qat {
			m = l
		}
		if r := 2*i + 2; r < n && q[r].qat < q[m].qat {
			m = r
		}
		if m == i {
			return
		}
		q.swap(i, m)
		i = m
	}
}

func (q quicTimers) swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].qidx, q[j].qidx = i, j
}
