package quic

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

// connPair runs a client Conn and a server Conn against each other in
// memory on a synthetic clock. drop and reorder, when set, pick datagrams
// (numbered from 0 in sending order) to lose or to deliver late.
type connPair struct {
	t              *testing.T
	client, server *Conn
	cfg            Config
	now            time.Time
	sent           int
	drop           func(n int) bool
	reorder        func(n int) bool
	late           [][]byte // held back, each to the conn at the same index of lateTo
	lateTo         []*Conn
	lateECN        []ECN
	buf            []byte
	// path, when set, is what the network does to datagram n's ECN
	// codepoint (a router that clears or re-marks it, or drops the
	// datagram: dropDatagram); datagrams arrive with the codepoint their
	// sender asked for otherwise.
	path func(n int, from *Conn, mark ECN) ECN
}

// dropDatagram, returned by a connPair's path, loses the datagram.
const dropDatagram ECN = 0xff

// The certificate of every connPair, made once.
var (
	pairCertOnce sync.Once
	pairCert     tls.Certificate
	pairPool     *x509.CertPool
)

func newConnPair(t *testing.T, tweak func(*Config)) *connPair {
	t.Helper()
	pairCertOnce.Do(func() { pairCert, pairPool = selfSigned(t) })
	cert, pool := pairCert, pairPool
	p := &connPair{t: t, now: time.Unix(1_700_000_000, 0), buf: make([]byte, 0, 2048)}
	ccfg := Config{TLSConfig: &tls.Config{ServerName: "localhost", RootCAs: pool, NextProtos: []string{"gust-test"}}}
	scfg := Config{TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"gust-test"}}}
	if tweak != nil {
		tweak(&ccfg)
		tweak(&scfg)
	}
	p.cfg = scfg
	c, err := NewClientConn(&ccfg, p.now)
	if err != nil {
		t.Fatal(err)
	}
	p.client = c
	t.Cleanup(func() {
		c.tls.Close()
		if p.server != nil && p.server.tls != nil { // nil once the handshake is done (releaseTLS)
			p.server.tls.Close()
		}
	})
	return p
}

// deliverECN hands d, arriving with the ECN codepoint mark, to the conn
// to, making the server on the first one.
func (p *connPair) deliverECN(to *Conn, d []byte, mark ECN) {
	if to == nil {
		h, err := ParseLongHeader(d)
		if err != nil {
			p.t.Fatalf("first datagram: %v", err)
		}
		s, err := NewServerConn(&p.cfg, h.DstConnID, nil, p.now)
		if err != nil {
			p.t.Fatal(err)
		}
		p.server = s
		to = s
	}
	to.ReceiveECN(d, mark, p.now)
}

// flush moves every datagram both ways once; it reports whether any moved.
func (p *connPair) flush() bool {
	moved := false
	for _, from := range []*Conn{p.client, p.server} {
		if from == nil {
			continue
		}
		for {
			d, ok := from.AppendDatagram(p.buf[:0], p.now)
			if !ok {
				break
			}
			moved = true
			to := p.server
			if from == p.server {
				to = p.client
			}
			n := p.sent
			p.sent++
			mark := from.DatagramECN()
			if p.path != nil {
				mark = p.path(n, from, mark)
			}
			switch {
			case mark == dropDatagram, p.drop != nil && p.drop(n):
			case p.reorder != nil && p.reorder(n):
				p.late = append(p.late, bytes.Clone(d))
				p.lateTo = append(p.lateTo, to)
				p.lateECN = append(p.lateECN, mark)
			default:
				p.deliverECN(to, d, mark)
			}
		}
	}
	if !moved && len(p.late) > 0 {
		for i, d := range p.late {
			p.deliverECN(p.lateTo[i], d, p.lateECN[i])
		}
		p.late, p.lateTo, p.lateECN = p.late[:0], p.lateTo[:0], p.lateECN[:0]
		moved = true
	}
	return moved
}

// run exchanges datagrams, advancing the clock to the next timeout when
// none moves, until done reports true.
func (p *connPair) run(what string, done func() bool) {
	p.t.Helper()
	for i := 0; i < 200000; i++ {
		if done() {
			return
		}
		if p.flush() {
			continue
		}
		next := p.client.NextTimeout()
		if p.server != nil {
			next = earliest(next, p.server.NextTimeout())
		}
		if next.IsZero() {
			break
		}
		if next.After(p.now) {
			p.now = next
		}
		p.client.OnTimeout(p.now)
		if p.server != nil {
			p.server.OnTimeout(p.now)
		}
	}
	p.t.Fatalf("%s: not done; client err %v, server err %v", what, p.client.Err(), p.server.Err())
}

func (p *connPair) handshake() {
	p.run("handshake", func() bool {
		return p.server != nil && p.client.HandshakeComplete() && p.server.handshakeConfirmed && p.client.handshakeConfirmed
	})
}

func TestConnHandshake(t *testing.T) {
	p := newConnPair(t, nil)
	p.handshake()
	if got := p.client.ConnectionState().NegotiatedProtocol; got != "gust-test" {
		t.Errorf("ALPN %q", got)
	}
	if !p.client.spaces[spaceInitial].dropped || !p.client.spaces[spaceHandshake].dropped ||
		!p.server.spaces[spaceInitial].dropped || !p.server.spaces[spaceHandshake].dropped {
		t.Error("Initial and Handshake keys not dropped")
	}
	for _, c := range []*Conn{p.client, p.server} {
		if c.long != nil || c.spaces[spaceInitial] != &discardedSpace || c.spaces[spaceHandshake] != &discardedSpace || c.loss.r.long != nil {
			t.Errorf("client %v: the long header spaces are kept once both are dropped", c.isClient)
		}
	}
	exchangeStreams(t, p, 4, 3000)
	wantDiscardedUntouched(t)
}

// wantDiscardedUntouched fails the test if something wrote to the space,
// or the loss state, every connection's dropped long header spaces share.
func wantDiscardedUntouched(t *testing.T) {
	t.Helper()
	if want := (pnSpace{dropped: true, largestAcked: -1, largestRecv: -1}); !reflect.DeepEqual(discardedSpace, want) {
		t.Fatalf("the shared discarded space was written: %+v", discardedSpace)
	}
	if !reflect.DeepEqual(discardedRecovery, spaceRecovery{discarded: true}) {
		t.Fatalf("the shared discarded loss state was written: %+v", discardedRecovery)
	}
}

// streamPeer reads every stream of a Conn from its events.
type streamPeer struct {
	c    *Conn
	got  map[uint64][]byte
	fins map[uint64]bool
	buf  []byte
}

func newStreamPeer(c *Conn) *streamPeer {
	return &streamPeer{c: c, got: map[uint64][]byte{}, buf: make([]byte, 4096), fins: map[uint64]bool{}}
}

func (sp *streamPeer) poll(t *testing.T) {
	for {
		ev := sp.c.NextEvent()
		switch ev.Kind {
		case EventNone:
			return
		case EventStreamReadable:
			for {
				n, fin, err := sp.c.Read(ev.StreamID, sp.buf)
				if err != nil {
					t.Fatalf("read %d: %v", ev.StreamID, err)
				}
				sp.got[ev.StreamID] = append(sp.got[ev.StreamID], sp.buf[:n]...)
				if fin {
					sp.fins[ev.StreamID] = true
					break
				}
				if n == 0 {
					break
				}
			}
		}
	}
}

// payload returns the bytes sent on stream id.
func payload(id uint64, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(id) + byte(i*7)
	}
	return b
}

func exchangeStreams(t *testing.T, p *connPair, n, size int) {
	t.Helper()
	cp, sp := newStreamPeer(p.client), newStreamPeer(p.server)
	pending := map[*Conn]map[uint64][]byte{p.client: {}, p.server: {}}
	for _, c := range []*Conn{p.client, p.server} {
		for i := range n {
			id, err := c.OpenStream(i%2 == 1)
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			pending[c][id] = payload(id, size)
		}
	}
	write := func() {
		for c, m := range pending {
			for id, rest := range m {
				k, err := c.Write(id, rest)
				if err != nil {
					t.Fatalf("write %d: %v", id, err)
				}
				if k == len(rest) {
					c.CloseWrite(id)
					delete(m, id)
				} else {
					m[id] = rest[k:]
				}
			}
		}
	}
	p.run("streams", func() bool {
		write()
		cp.poll(t)
		sp.poll(t)
		return len(cp.fins) == n && len(sp.fins) == n
	})
	for _, r := range []*streamPeer{cp, sp} {
		for id, data := range r.got {
			if !bytes.Equal(data, payload(id, size)) {
				t.Fatalf("stream %d: got %d bytes, want %d", id, len(data), size)
			}
		}
	}
}

func TestConnStreams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		drop    func(int) bool
		reorder func(int) bool
		tweak   func(*Config)
	}{
		{"clean", nil, nil, nil},
		{"every 7th dropped, some reordered", func(n int) bool { return n%7 == 6 }, func(n int) bool { return n%11 == 3 }, nil},
		{"small windows", nil, nil, func(c *Config) { c.MaxStreamData, c.MaxData = 3000, 20000 }},
		{"small windows, every 7th dropped", func(n int) bool { return n%7 == 6 }, nil,
			func(c *Config) { c.MaxStreamData, c.MaxData = 3000, 20000 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newConnPair(t, tc.tweak)
			p.handshake()
			p.drop, p.reorder = tc.drop, tc.reorder
			exchangeStreams(t, p, 100, 5000)
			if err := p.client.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

var _ = fmt.Sprint

func TestConnStreamLimit(t *testing.T) {
	p := newConnPair(t, func(c *Config) { c.MaxStreamsUni = 4 })
	p.handshake()
	sp := newStreamPeer(p.server)
	opened := 0
	for opened < 20 {
		id, err := p.client.OpenStream(true)
		if err == ErrStreamLimit {
			p.run("MAX_STREAMS", func() bool {
				sp.poll(t)
				return p.client.strms.opened[1] < p.client.strms.limit[1]
			})
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		opened++
		p.client.Write(id, []byte("x"))
		p.client.CloseWrite(id)
	}
	p.run("every stream", func() bool { sp.poll(t); return len(sp.fins) == 20 })
}

func TestConnKeyUpdateAndClose(t *testing.T) {
	p := newConnPair(t, nil)
	p.handshake()
	for i := range 3 {
		exchangeStreams(t, p, 2, 3000)
		if err := p.client.UpdateKeys(); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		if p.client.UpdateKeys() == nil {
			t.Fatal("a second update before the first is acknowledged")
		}
	}
	exchangeStreams(t, p, 2, 3000)
	if p.server.KeyPhase() != p.client.KeyPhase() || !p.client.KeyPhase() {
		t.Fatalf("key phases: client %v, server %v", p.client.KeyPhase(), p.server.KeyPhase())
	}
	p.client.Close(7, "bye", p.now)
	p.run("close", func() bool { return p.client.Closed() && p.server.Closed() })
	var ce *CloseError
	if !errors.As(p.server.Err(), &ce) || !ce.Remote || !ce.Application || ce.Code != 7 || ce.Reason != "bye" {
		t.Fatalf("server error %v", p.server.Err())
	}
}

func TestConnIdleTimeout(t *testing.T) {
	p := newConnPair(t, func(c *Config) { c.MaxIdleTimeout = 5 * time.Second })
	p.handshake()
	start := p.now
	p.run("idle", func() bool { return p.client.Closed() && p.server.Closed() })
	if p.client.Err() != ErrIdleTimeout || p.now.Sub(start) < 5*time.Second {
		t.Fatalf("client error %v after %v", p.client.Err(), p.now.Sub(start))
	}
}

func TestConnLossyHandshake(t *testing.T) {
	for _, tc := range []struct {
		name string
		drop func(int) bool
	}{
		{"the client's first flight lost", func(n int) bool { return n == 0 }},
		{"the server's first flight lost", func(n int) bool { return n == 1 || n == 2 }},
		{"every fifth datagram lost", func(n int) bool { return n%5 == 2 }},
		{"every fourth datagram lost", func(n int) bool { return n%4 == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newConnPair(t, nil)
			p.drop = tc.drop
			first, _ := p.client.AppendDatagram(nil, p.now)
			h, _ := ParseLongHeader(first)
			s, err := NewServerConn(&p.cfg, h.DstConnID, nil, p.now)
			if err != nil {
				t.Fatal(err)
			}
			p.server = s
			if !tc.drop(0) {
				s.Receive(first, p.now)
			}
			p.sent = 1
			p.handshake()
			exchangeStreams(t, p, 10, 3000)
		})
	}
}

// With KeepAlive a quiet connection sends a PING at half its idle
// timeout and stays open; without it, it ends at the idle timeout.
func TestConnKeepAlive(t *testing.T) {
	p := newConnPair(t, func(c *Config) { c.MaxIdleTimeout = 5 * time.Second })
	p.client.cfg.KeepAlive = true
	p.handshake()
	start := p.now
	p.run("a quiet minute", func() bool { return p.now.Sub(start) > time.Minute || p.client.Closed() })
	if p.client.Closed() || p.server.Closed() {
		t.Fatalf("closed after %v of quiet (client %v, server %v): the PINGs did not keep it open",
			p.now.Sub(start), p.client.Err(), p.server.Err())
	}
}

// With KeyUpdateEvery the client updates its keys as it goes, the
// server follows each update, and every byte arrives.
func TestConnKeyUpdatesEveryFewPackets(t *testing.T) {
	p := newConnPair(t, nil)
	p.client.cfg.KeyUpdateEvery = 8
	p.handshake()
	id, err := p.client.OpenStream(false)
	if err != nil {
		t.Fatal(err)
	}
	const total = 200_000
	msg := make([]byte, 1000)
	buf := make([]byte, 4096)
	got, flips, phase := 0, 0, p.client.KeyPhase()
	written := 0
	p.run("200 kB with key updates", func() bool {
		for written < total {
			n, _ := p.client.Write(id, msg[:min(len(msg), total-written)])
			if n == 0 {
				break
			}
			written += n
		}
		for p.server.Readable(id) > 0 {
			n, _, _ := p.server.Read(id, buf)
			got += n
		}
		for ev := p.server.NextEvent(); ev.Kind != EventNone; ev = p.server.NextEvent() {
		}
		if k := p.client.KeyPhase(); k != phase {
			phase, flips = k, flips+1
		}
		return got == total
	})
	if flips < 5 || p.client.Err() != nil || p.server.Err() != nil {
		t.Errorf("%d key updates while sending %d bytes (client %v, server %v); want several and no error", flips, total, p.client.Err(), p.server.Err())
	}
}
