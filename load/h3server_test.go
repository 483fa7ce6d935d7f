package load

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
)

// h3TestServer is a small HTTP/3 server for the load tests, on
// internal/quic's server role and a plain UDP socket, one goroutine for
// all its connections (the client opens a socket per connection, so the
// peer's address names the connection). Its misbehaviours are set per
// test: a GOAWAY, reset streams, a malformed answer, frames and streams
// of unknown types, a handshake refused, QUIC-level bad input.
type h3TestServer struct {
	t    *testing.T
	udp  *net.UDPConn
	tls  *tls.Config
	opts h3TestOptions

	mu       sync.Mutex
	requests int    // answered and reset, all connections
	conns    int    // connections accepted
	lost     uint64 // packets the server declared lost, counted as its connections end
	// peerCloses counts the connections the client closed, by its error
	// as closeName names it ("peer: FLOW_CONTROL_ERROR").
	peerCloses map[string]int
	junk       int64 // datagrams sent that the client must drop (h3server_bad_test.go)
}

// h3TestOptions are what a test server does besides answering "hello".
type h3TestOptions struct {
	goAwayAfter   int  // per connection: after this many requests, GOAWAY and no more answers
	resetEvery    int  // reset every n-th request stream with H3_INTERNAL_ERROR
	badHeader     bool // answer with an upper-case field name (malformed)
	unknownFrames bool // a reserved frame before each answer, and a one-way stream of a reserved type
	refuse        bool // close every connection in its handshake with CONNECTION_REFUSED
	// goAwayTwice: with goAwayAfter, a first GOAWAY naming no stream
	// (2^62-4) goes out then, and 20 ms later the one that names the
	// streams it left unanswered meanwhile, as RFC 9114 section 5.2 lets
	// a server leave them.
	goAwayTwice bool
	// bad is QUIC-level bad input (h3server_bad_test.go), none when 0.
	bad h3Bad
}

// h3ServerConn is one connection's state on the test server.
type h3ServerConn struct {
	qc       *quic.Conn
	peer     *net.UDPAddr
	reqs     map[uint64][]byte
	answered int
	opened   bool
	goneAway bool
	goAwayID uint64    // the last GOAWAY's stream ID, once goneAway
	goAwayAt time.Time // with goAwayTwice: when the second GOAWAY is due
	nth      int       // its place in the order of connections, from 1 (the probe's)
	sent     int       // datagrams sent
}

func startH3TestServer(t *testing.T, opts h3TestOptions) (*h3TestServer, string) {
	t.Helper()
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	return startH3TestServerOn(t, udp, opts)
}

// startH3TestServerOn serves on udp, a socket the test made (in a network
// namespace of its own, say).
func startH3TestServerOn(t *testing.T, udp *net.UDPConn, opts h3TestOptions) (*h3TestServer, string) {
	t.Helper()
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := &h3TestServer{t: t, udp: udp, opts: opts, peerCloses: map[string]int{},
		tls: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h3"}, MinVersion: tls.VersionTLS13}}
	done := make(chan struct{})
	go s.serve(done)
	t.Cleanup(func() { udp.Close(); <-done })
	return s, "https://" + udp.LocalAddr().String() + "/"
}

func (s *h3TestServer) counts() (requests, conns int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.conns
}

// packetsLost returns the packets the server declared lost on the
// connections that have ended (all of them once the socket is closed).
func (s *h3TestServer) packetsLost() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// ended counts what a connection's loss detection saw.
func (s *h3TestServer) ended(c *h3ServerConn) {
	s.mu.Lock()
	s.lost += c.qc.Stats().PacketsLost
	var ce *quic.CloseError
	if err := c.qc.Err(); errors.As(err, &ce) && ce.Remote {
		s.peerCloses[closeName(err)]++
	}
	s.mu.Unlock()
}

// serve reads datagrams until the socket closes, feeding each to its
// connection, and runs timers between reads.
func (s *h3TestServer) serve(done chan struct{}) {
	defer close(done)
	conns := map[string]*h3ServerConn{}
	defer func() {
		for _, c := range conns {
			s.ended(c)
		}
	}()
	buf := make([]byte, 65536)
	out := make([]byte, 0, 2048)
	rbuf := make([]byte, 16<<10)
	for {
		s.udp.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		n, peer, err := s.udp.ReadFromUDP(buf)
		now := time.Now()
		if err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				return
			}
		} else {
			c := conns[peer.String()]
			if c == nil {
				h, err := quic.ParseLongHeader(buf[:n])
				if err != nil {
					continue
				}
				qc, err := quic.NewServerConn(&quic.Config{TLSConfig: s.tls, MaxIdleTimeout: 30 * time.Second}, h.DstConnID, nil, now)
				if err != nil {
					continue
				}
				c = &h3ServerConn{qc: qc, peer: peer, reqs: map[uint64][]byte{}}
				conns[peer.String()] = c
				s.mu.Lock()
				s.conns++
				c.nth = s.conns
				s.mu.Unlock()
			}
			c.qc.Receive(buf[:n], now)
			if (s.opts.refuse || s.opts.bad == badHandshakeClose && c.nth > 1 && c.nth <= 3) && !c.qc.HandshakeComplete() {
				c.qc.CloseTransport(quic.ConnectionRefused, "refused by the test", now)
			}
		}
		for key, c := range conns {
			if t := c.qc.NextTimeout(); !t.IsZero() && !now.Before(t) {
				c.qc.OnTimeout(now)
			}
			s.events(c, rbuf)
			if !c.goAwayAt.IsZero() && !now.Before(c.goAwayAt) {
				c.goAwayAt = time.Time{}
				c.qc.Write(3, http3.AppendGoAway(nil, c.goAwayID))
			}
			for {
				d, ok := c.qc.AppendDatagram(out[:0], now)
				if !ok {
					break
				}
				s.send(c, d)
			}
			if c.qc.Closed() {
				s.ended(c)
				delete(conns, key)
			}
		}
	}
}

// events reads the connection's requests and answers those complete.
func (s *h3TestServer) events(c *h3ServerConn, rbuf []byte) {
	for ev := c.qc.NextEvent(); ev.Kind != quic.EventNone; ev = c.qc.NextEvent() {
		switch ev.Kind {
		case quic.EventHandshakeDone:
			s.openControl(c)
		case quic.EventStreamReadable:
			if quic.IsUniStream(ev.StreamID) {
				for { // the client's control stream: read and ignored
					if n, _, err := c.qc.Read(ev.StreamID, rbuf); err != nil || n == 0 {
						break
					}
				}
				continue
			}
			for {
				n, fin, err := c.qc.Read(ev.StreamID, rbuf)
				if err != nil {
					break
				}
				c.reqs[ev.StreamID] = append(c.reqs[ev.StreamID], rbuf[:n]...)
				if fin {
					s.answer(c, ev.StreamID, c.reqs[ev.StreamID])
					delete(c.reqs, ev.StreamID)
					break
				}
				if n == 0 {
					break
				}
			}
		}
	}
}

// openControl opens the server's control stream with its SETTINGS, and
// with unknownFrames a one-way stream of a reserved type.
func (s *h3TestServer) openControl(c *h3ServerConn) {
	id, err := c.qc.OpenStream(true)
	if err != nil {
		s.t.Errorf("test server: control stream: %v", err)
		return
	}
	c.qc.Write(id, http3.AppendControlStreamStart(nil, http3.DefaultSettings()))
	if s.opts.unknownFrames {
		if id, err := c.qc.OpenStream(true); err == nil {
			c.qc.Write(id, quic.AppendVarint(nil, 0x21+0x1f*3)) // a reserved stream type
			c.qc.Write(id, []byte("ignored"))
		}
	}
	c.opened = true
}

// answer checks a request stream's frames and answers it as the options
// say.
func (s *h3TestServer) answer(c *h3ServerConn, id uint64, req []byte) {
	var r http3.FrameReader
	var d http3.Decoder
	var head http3.RequestHead
	for len(req) > 0 {
		f, n, ok, err := r.Next(req)
		if err != nil || !ok {
			s.t.Errorf("test server: request stream %d: %v", id, err)
			return
		}
		req = req[n:]
		if f.Type == http3.FrameHeaders {
			fields, err := d.Decode(nil, f.Payload)
			if err == nil {
				err = http3.CheckRequest(fields, &head, false)
			}
			if err != nil {
				s.t.Errorf("test server: request head: %v", err)
				return
			}
		}
	}
	if c.goneAway && s.opts.goAwayTwice && id >= c.goAwayID {
		return // never processed: the client knows from the GOAWAY
	}
	if c.goneAway {
		c.qc.ResetStream(id, uint64(http3.ErrCodeRequestRejected))
		return
	}
	if s.badStream(c, id) {
		return
	}
	c.answered++
	s.mu.Lock()
	s.requests++
	nth := s.requests
	s.mu.Unlock()
	if s.opts.resetEvery > 0 && nth%s.opts.resetEvery == 0 {
		c.qc.ResetStream(id, uint64(http3.ErrCodeInternal))
		c.qc.StopSending(id, uint64(http3.ErrCodeInternal))
		return
	}
	var b []byte
	if s.opts.unknownFrames {
		b = http3.AppendFrameHeader(b, http3.FrameType(0x21+0x1f*2), 3)
		b = append(b, "abc"...)
	}
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":status", "200")
	sec = http3.AppendField(sec, "content-length", "5")
	if s.opts.badHeader {
		sec = http3.AppendField(sec, "X-Upper", "no")
	}
	b = http3.AppendHeaders(b, sec)
	b = http3.AppendData(b, []byte("hello"))
	c.qc.Write(id, b)
	c.qc.CloseWrite(id)
	if s.opts.goAwayAfter > 0 && c.answered == s.opts.goAwayAfter {
		c.goneAway, c.goAwayID = true, id+4
		if s.opts.goAwayTwice {
			c.qc.Write(3, http3.AppendGoAway(nil, 1<<62-4)) // the server's control stream is 3
			c.goAwayAt = time.Now().Add(20 * time.Millisecond)
			return
		}
		c.qc.Write(3, http3.AppendGoAway(nil, id+4))
	}
}
